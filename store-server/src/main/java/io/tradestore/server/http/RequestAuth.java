package io.tradestore.server.http;

import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;

import io.netty.handler.codec.http.HttpHeaderNames;

/**
 * Who may ask: the Host and Origin a request names (see {@link HostPolicy}) and, when the server has one, its bearer
 * token (on the line protocol paths also as InfluxDB's {@code Authorization: Token ...}). Each check answers a
 * refused request itself and says so by returning false.
 */
final class RequestAuth {
    private static final String BEARER = "Bearer ";
    /** InfluxDB 2's scheme, which its clients and Telegraf send with their token: taken on the line protocol paths. */
    private static final String TOKEN = "Token ";

    private final byte[] expectedAuthorization;
    private final HostPolicy hosts;
    private final AnswerWriter answers;

    RequestAuth(final ServerConfig config, final AnswerWriter answers) {
        this.expectedAuthorization = config.token() == null ? null : config.token().getBytes(StandardCharsets.UTF_8);
        this.hosts = new HostPolicy(config.bind(), config.limits().allowedHosts(), config.token() != null);
        this.answers = answers;
    }

    /**
     * @param call the request (answered 400 or 403 and marked to close when its Host is refused).
     * @return whether its Host and Origin are allowed.
     */
    boolean hostAllowed(final Call call) {
        final String host = call.request.headers().get(HttpHeaderNames.HOST);
        final String badHost = host == null && !call.request.protocolVersion().isKeepAliveDefault()
            ? null : hosts.refuseHost(host);
        if (badHost != null) {
            call.keepAlive = false;
            answers.error(call, host == null ? 400 : 403, host == null ? "MALFORMED_REQUEST" : "FORBIDDEN_HOST",
                badHost, "");
            return false;
        }
        final String badOrigin = hosts.refuseOrigin(call.request.headers().get(HttpHeaderNames.ORIGIN), host);
        if (badOrigin != null) {
            answers.error(call, 403, "FORBIDDEN_ORIGIN", badOrigin, "");
            return false;
        }
        return true;
    }

    /**
     * @param call the request (answered 401 when it lacks the server's token).
     * @return whether the server has no token or the request carries it.
     */
    boolean tokenAccepted(final Call call) {
        // the console's files hold no data: the page loads, then asks for the token its API calls carry
        if (expectedAuthorization != null && call.endpoint != Endpoint.CONSOLE && !authorized(call)) {
            call.header("WWW-Authenticate", "Bearer realm=\"tradestore\"");
            answers.error(call, 401, "UNAUTHORIZED",
                "send the header 'Authorization: Bearer <token>' with the server's token", "");
            return false;
        }
        return true;
    }

    /**
     * An auth scheme's name is case-insensitive (RFC 9110, 11.1): "bearer" and "BEARER" are Bearer; the token is not.
     */
    private boolean authorized(final Call call) {
        final String h = call.request.headers().get(HttpHeaderNames.AUTHORIZATION);
        if (h == null) {
            return false;
        }
        final String scheme = h.regionMatches(true, 0, BEARER, 0, BEARER.length()) ? BEARER
            : call.endpoint == Endpoint.WRITE && h.regionMatches(true, 0, TOKEN, 0, TOKEN.length()) ? TOKEN : null;
        return scheme != null && MessageDigest.isEqual(expectedAuthorization,
            h.substring(scheme.length()).getBytes(StandardCharsets.UTF_8));
    }
}
