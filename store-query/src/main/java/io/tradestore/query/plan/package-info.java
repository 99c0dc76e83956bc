/** Parsing JSON into the query model and binding the model to a table snapshot: typed values, pruning, kernel choice. */
package io.tradestore.query.plan;
