/**
 * Running a bound plan: parallel workers over morsels of segments and blocks (Executor), each with its batch state
 * (BatchContext) feeding the filters, group tables and accumulators of the subpackages, and the answer's rows.
 */
package io.tradestore.query.exec;
