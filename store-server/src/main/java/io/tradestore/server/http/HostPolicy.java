package io.tradestore.server.http;

import java.net.URI;
import java.net.URISyntaxException;
import java.util.List;
import java.util.Locale;
import java.util.Set;
import java.util.stream.Collectors;

import io.tradestore.core.StoreException;

/**
 * Which {@code Host} and {@code Origin} values a server answers. A server without a token trusts whoever can reach it,
 * which on loopback means every program of the machine, but also, through a browser, any web page: a page can rebind
 * its own name to 127.0.0.1 (its requests then carry {@code Host: attacker.example}) or post a form across sites. So
 * without a token the server answers only requests whose Host names a loopback address, the bound address or a name
 * given by {@code --allowed-hosts}, and refuses any request whose {@code Origin} (sent by browsers on cross-site and on
 * all non-GET requests) is another site. With a token, a page cannot read the token, so any Host is accepted.
 */
final class HostPolicy {
    private final boolean tokenRequired;
    private final Set<String> allowedHosts;

    /**
     * @param bind          the address the server listens on.
     * @param allowedHosts  further host names (without port) clients may use, such as a DNS name of the machine.
     * @param tokenRequired whether requests carry a bearer token (then Host is not checked, Origin still is).
     */
    HostPolicy(final String bind, final List<String> allowedHosts, final boolean tokenRequired) {
        this.tokenRequired = tokenRequired;
        this.allowedHosts = allowedHosts.stream().map(h -> h.toLowerCase(Locale.ROOT))
            .collect(Collectors.toUnmodifiableSet());
        this.bind = bind.toLowerCase(Locale.ROOT);
    }

    private final String bind;

    /**
     * @param host the Host header (may carry a port; IPv6 literals in brackets).
     * @return null when the host is accepted, else why not.
     */
    String refuseHost(final String host) {
        if (host == null || host.isEmpty()) {
            return "HTTP/1.1 requests must carry a Host header (RFC 9112, 3.2)";
        }
        if (tokenRequired) {
            return null;
        }
        final String name = hostName(host);
        if (name == null) {
            return "the Host header '" + StoreException.echo(host) + "' is not a host[:port]";
        }
        if (isLoopbackName(name) || name.equals(bind) || allowedHosts.contains(name)) {
            return null;
        }
        return "the Host header '" + StoreException.echo(host)
            + "' names neither this machine's loopback address nor the bound address; a server "
            + "without --token answers only those (a web page could otherwise reach it through DNS rebinding): add "
            + "the name to "
            + "--allowed-hosts or start the server with --token";
    }

    /**
     * @param origin the Origin header, or null (not sent by curl, SDKs and same-origin GETs).
     * @param host   the request's Host header.
     * @return null when the origin is accepted, else why not.
     */
    String refuseOrigin(final String origin, final String host) {
        if (origin == null) {
            return null;
        }
        final String originHost;
        try {
            final URI u = new URI(origin.trim());
            originHost = u.getHost() == null ? null : (u.getPort() < 0 ? u.getHost() : u.getHost() + ":" + u.getPort());
        } catch (final URISyntaxException e) {
            return "the Origin header '" + StoreException.echo(origin) + "' is not an origin";
        }
        if (originHost != null && host != null && originHost.equalsIgnoreCase(host)) {
            return null; // the server's own pages (a console served by this server)
        }
        final String name = originHost == null ? null : hostName(originHost);
        if (name != null && allowedHosts.contains(name)) {
            return null;
        }
        return "cross-origin requests are refused: the Origin '" + StoreException.echo(origin)
            + "' is not this server; a page from another site "
            + "must not run queries here (add its host to --allowed-hosts to allow it)";
    }

    /** @return the lower-case host name of {@code host[:port]} or {@code [v6]:port}, without brackets, or null. */
    static String hostName(final String hostAndPort) {
        final String h = hostAndPort.trim().toLowerCase(Locale.ROOT);
        if (h.startsWith("[")) {
            final int end = h.indexOf(']');
            if (end < 0 || (end + 1 < h.length() && !isPort(h.substring(end + 1)))) {
                return null;
            }
            return h.substring(1, end);
        }
        final int colon = h.indexOf(':');
        if (colon >= 0 && (h.indexOf(':', colon + 1) >= 0 || !isPort(h.substring(colon)))) {
            return null;
        }
        final String name = colon < 0 ? h : h.substring(0, colon);
        return name.isEmpty() ? null : name;
    }

    private static boolean isPort(final String colonPort) {
        if (colonPort.length() < 2 || colonPort.length() > 6 || colonPort.charAt(0) != ':') {
            return false;
        }
        for (int i = 1; i < colonPort.length(); i++) {
            if (colonPort.charAt(i) < '0' || colonPort.charAt(i) > '9') {
                return false;
            }
        }
        return true;
    }

    /**
     * localhost, a 127/8 address or ::1, by their text: resolving a name here would ask DNS, which the attacker
     * controls.
     */
    static boolean isLoopbackName(final String name) {
        if ("localhost".equals(name) || name.endsWith(".localhost") || "::1".equals(name)
            || "0:0:0:0:0:0:0:1".equals(name)) {
            return true;
        }
        if (!name.startsWith("127.")) {
            return false;
        }
        final String[] parts = name.split("\\.", -1);
        if (parts.length != 4) {
            return false;
        }
        for (final String p : parts) {
            if (p.isEmpty() || p.length() > 3 || !p.chars().allMatch(Character::isDigit) || Integer.parseInt(p) > 255) {
                return false;
            }
        }
        return true;
    }
}
