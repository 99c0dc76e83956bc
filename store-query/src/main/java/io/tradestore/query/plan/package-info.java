/**
 * Binding a parsed query to a snapshot: names and literals to columns and codes (Binder, FilterBinder,
 * AggregateBinder, Literals), the proofs that prune segments and blocks (ConjunctProofs), and the Plan that says
 * which filters, keys, accumulators and kernel the executor runs.
 */
package io.tradestore.query.plan;
