/** The tradestore command line (picocli): create, load, generate, query, serve, info, check, demo. */
package io.tradestore.server.cli;
