/** The HTTP/JSON query server: bounded workers, back pressure, metrics. */
package io.tradestore.server.http;
