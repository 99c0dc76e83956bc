package io.tradestore.server.pg;

/**
 * One message from a client, whole: a typed message ({@code Q}, {@code P}, {@code B}...) or, before the session starts,
 * an untyped one (startup, SSLRequest, GSSENCRequest, CancelRequest) known by its code.
 *
 * @param type the message type, or 0 for an untyped message.
 * @param code an untyped message's code (protocol version or request code); 0 for typed ones.
 * @param body the message after its length (after the code for an untyped one).
 */
record PgFrame(char type, int code, byte[] body) {
    /** Protocol 3.0 as a startup message's code carries it. */
    static final int PROTOCOL_3 = 3 << 16;
    static final int SSL_REQUEST = 80_877_103;
    static final int GSSENC_REQUEST = 80_877_104;
    static final int CANCEL_REQUEST = 80_877_102;

    /** @return whether this is an untyped message of the startup phase. */
    boolean untyped() {
        return type == 0;
    }
}
