/** The query workers and their admission, shared by the HTTP and PostgreSQL front ends of one server. */
package io.tradestore.server.admission;
