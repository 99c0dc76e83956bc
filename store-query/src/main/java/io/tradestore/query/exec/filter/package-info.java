/** Filter kernels: a batch of rows in, the passing rows out as a selection vector, one class per comparison kind. */
package io.tradestore.query.exec.filter;
