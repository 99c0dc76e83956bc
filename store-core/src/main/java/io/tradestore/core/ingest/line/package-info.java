/** InfluxDB line protocol: lines parsed in place and appended to tables, one request per transaction. */
package io.tradestore.core.ingest.line;
