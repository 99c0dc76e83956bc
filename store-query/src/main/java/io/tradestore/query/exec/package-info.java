/**
 * Planning and execution of a parsed query: binding it to a snapshot (Binder, FilterBinder, AggregateBinder, Literals)
 * into a Plan, then batch-at-a-time filter kernels, group tables and accumulators run by parallel workers with private
 * partials merged at the end (Executor), and the answer's rows. One package because the hot loops share its
 * package-private state.
 */
package io.tradestore.query.exec;
