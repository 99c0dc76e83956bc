/** The SQL front end: SQL text parsed by JSqlParser and translated into the query model that JSON queries use. */
package io.tradestore.query.sql;
