package io.tradestore.server.pg;

import java.nio.charset.StandardCharsets;
import java.security.GeneralSecurityException;
import java.security.MessageDigest;
import java.security.SecureRandom;
import java.util.Base64;

import javax.crypto.Mac;
import javax.crypto.SecretKeyFactory;
import javax.crypto.spec.PBEKeySpec;
import javax.crypto.spec.SecretKeySpec;

/**
 * The server side of SCRAM-SHA-256 (RFC 5802, RFC 7677) as PostgreSQL runs it, without channel binding (there is no
 * TLS): the client proves it knows the token without sending it. Keys are derived from the token once per server;
 * each login gets a new salt-independent nonce.
 *
 * <pre>
 *  client-first  n,,n=,r=CNONCE                         (gs2 header "n,," or "y,,"; the user name is ignored)
 *  server-first  r=CNONCE SNONCE,s=SALT,i=4096
 *  client-final  c=biws,r=CNONCE SNONCE,p=PROOF          PROOF = ClientKey xor HMAC(StoredKey, AuthMessage)
 *  server-final  v=HMAC(ServerKey, AuthMessage)
 * </pre>
 */
final class PgScram {
    static final String MECHANISM = "SCRAM-SHA-256";
    private static final int ITERATIONS = 4096;
    private static final SecureRandom RANDOM = new SecureRandom();

    /** The keys of one token, derived once. */
    static final class Keys {
        private final byte[] salt;
        private final byte[] storedKey;
        private final byte[] serverKey;

        /** @param token the password clients must prove they know. */
        Keys(final String token) {
            salt = new byte[16];
            RANDOM.nextBytes(salt);
            final byte[] salted = pbkdf2(token, salt);
            storedKey = sha256(hmac(salted, "Client Key".getBytes(StandardCharsets.US_ASCII)));
            serverKey = hmac(salted, "Server Key".getBytes(StandardCharsets.US_ASCII));
        }
    }

    private final Keys keys;
    private String clientFirstBare;
    private String serverFirst;
    private String nonce;

    PgScram(final Keys keys) {
        this.keys = keys;
    }

    /**
     * @param clientFirst the client-first message.
     * @return the server-first message.
     * @throws PgFailure 28000 when the message is not a SCRAM client-first without channel binding.
     */
    String first(final String clientFirst) {
        if (!(clientFirst.startsWith("n,,") || clientFirst.startsWith("y,,"))) {
            throw refused("channel binding is not offered (there is no TLS): send the gs2 header n,,");
        }
        clientFirstBare = clientFirst.substring(3);
        final String clientNonce = attribute(clientFirstBare, 'r');
        if (clientNonce == null || clientNonce.isEmpty()) {
            throw refused("the SCRAM client-first message has no nonce");
        }
        final byte[] mine = new byte[18];
        RANDOM.nextBytes(mine);
        nonce = clientNonce + Base64.getEncoder().encodeToString(mine);
        serverFirst = "r=" + nonce + ",s=" + Base64.getEncoder().encodeToString(keys.salt) + ",i=" + ITERATIONS;
        return serverFirst;
    }

    /**
     * @param clientFinal the client-final message.
     * @return the server-final message, when the proof is right.
     * @throws PgFailure 28P01 when it is not.
     */
    String last(final String clientFinal) {
        final int at = clientFinal.lastIndexOf(",p=");
        if (serverFirst == null || at < 0) {
            throw refused("the SCRAM client-final message has no proof");
        }
        final String withoutProof = clientFinal.substring(0, at);
        if (!nonce.equals(attribute(withoutProof, 'r'))) {
            throw new PgFailure(PgError.fatal(PgError.INVALID_PASSWORD, "SCRAM nonce mismatch"));
        }
        final byte[] proof;
        try {
            proof = Base64.getDecoder().decode(clientFinal.substring(at + 3));
        } catch (final IllegalArgumentException e) {
            throw refused("the SCRAM proof is not base64");
        }
        final byte[] authMessage = (clientFirstBare + "," + serverFirst + "," + withoutProof)
            .getBytes(StandardCharsets.UTF_8);
        final byte[] signature = hmac(keys.storedKey, authMessage);
        if (proof.length != signature.length) {
            throw new PgFailure(PgError.fatal(PgError.INVALID_PASSWORD, "password authentication failed"));
        }
        final byte[] clientKey = new byte[proof.length];
        for (int i = 0; i < proof.length; i++) {
            clientKey[i] = (byte) (proof[i] ^ signature[i]);
        }
        if (!MessageDigest.isEqual(sha256(clientKey), keys.storedKey)) {
            throw new PgFailure(PgError.fatal(PgError.INVALID_PASSWORD, "password authentication failed: the "
                + "password is the server's token (--token)"));
        }
        return "v=" + Base64.getEncoder().encodeToString(hmac(keys.serverKey, authMessage));
    }

    private static String attribute(final String message, final char name) {
        for (final String part : message.split(",")) {
            if (part.length() >= 2 && part.charAt(0) == name && part.charAt(1) == '=') {
                return part.substring(2);
            }
        }
        return null;
    }

    private static PgFailure refused(final String message) {
        return new PgFailure(PgError.fatal("28000", message));
    }

    private static byte[] pbkdf2(final String password, final byte[] salt) {
        try {
            final SecretKeyFactory f = SecretKeyFactory.getInstance("PBKDF2WithHmacSHA256");
            return f.generateSecret(new PBEKeySpec(password.toCharArray(), salt, ITERATIONS, 256)).getEncoded();
        } catch (final GeneralSecurityException e) {
            throw new IllegalStateException("this JVM has no PBKDF2WithHmacSHA256", e);
        }
    }

    private static byte[] hmac(final byte[] key, final byte[] data) {
        try {
            final Mac mac = Mac.getInstance("HmacSHA256");
            mac.init(new SecretKeySpec(key, "HmacSHA256"));
            return mac.doFinal(data);
        } catch (final GeneralSecurityException e) {
            throw new IllegalStateException("this JVM has no HmacSHA256", e);
        }
    }

    private static byte[] sha256(final byte[] data) {
        try {
            return MessageDigest.getInstance("SHA-256").digest(data);
        } catch (final GeneralSecurityException e) {
            throw new IllegalStateException("this JVM has no SHA-256", e);
        }
    }
}
