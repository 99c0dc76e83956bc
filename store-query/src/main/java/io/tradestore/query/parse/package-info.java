/** Parsing: checks a request body's UTF-8 and turns its JSON text into the query model, with each error's position. */
package io.tradestore.query.parse;
