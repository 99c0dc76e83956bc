/** The PostgreSQL wire protocol (v3) front end: psql, JDBC, psycopg and Grafana run SQL on the store. */
package io.tradestore.server.pg;
