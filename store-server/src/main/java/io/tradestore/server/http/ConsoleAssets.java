package io.tradestore.server.http;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.util.Map;
import java.util.Properties;

/**
 * The browser console's files (docs/console.md), read once from the jar: the page at {@code /}, its script and style,
 * and Apache ECharts from its webjar, under {@code /console/}. Every answer carries a Content-Security-Policy that
 * allows only this server's own scripts, styles and API (no inline script, no eval, no other origin), so the page can
 * run nothing it did not ship with. The files hold no data, so they are served without the API's token; the page
 * sends the token with each API call.
 */
final class ConsoleAssets {
    /** The policy of the page and its files. */
    static final String CONTENT_SECURITY_POLICY = "default-src 'none'; script-src 'self'; style-src 'self'; "
        + "img-src 'self' data:; connect-src 'self'; font-src 'self'; base-uri 'none'; form-action 'none'; "
        + "frame-ancestors 'none'";
    /** Where the console's files are: {@code GET /console/NAME}. */
    static final String PREFIX = "/console/";

    /** A file: its bytes and content type. */
    record Asset(byte[] bytes, String contentType) {
    }

    private final Map<String, Asset> files;

    private ConsoleAssets(final Map<String, Asset> files) {
        this.files = files;
    }

    /**
     * @return the console's files, read from the class path.
     * @throws UncheckedIOException when one is missing from the jar (a broken build).
     */
    static ConsoleAssets load() {
        return new ConsoleAssets(Map.of(
            "/", read("io/tradestore/server/console/index.html", "text/html; charset=utf-8"),
            PREFIX + "console.js", read("io/tradestore/server/console/console.js",
                "text/javascript; charset=utf-8"),
            PREFIX + "console.css", read("io/tradestore/server/console/console.css", "text/css; charset=utf-8"),
            PREFIX + "echarts.min.js", read("META-INF/resources/webjars/echarts/" + webjarVersion("echarts")
                + "/dist/echarts.min.js", "text/javascript; charset=utf-8")));
    }

    /** @return the version of the npm webjar on the class path, from its pom.properties (the pom pins it once). */
    private static String webjarVersion(final String artifact) {
        final Properties p = new Properties();
        try (InputStream in = ConsoleAssets.class.getClassLoader().getResourceAsStream(
            "META-INF/maven/org.webjars.npm/" + artifact + "/pom.properties")) {
            if (in == null) {
                throw new UncheckedIOException(new IOException("the webjar org.webjars.npm:" + artifact
                    + " is not on the class path: rebuild the jar"));
            }
            p.load(in);
        } catch (final IOException e) {
            throw new UncheckedIOException(e);
        }
        return p.getProperty("version");
    }

    /** @param path a request path. @return whether it is the console's (the page, or under /console/). */
    static boolean isConsole(final String path) {
        return "/".equals(path) || path.startsWith(PREFIX) || "/console".equals(path);
    }

    /** @param path a request path. @return its file, or null. */
    Asset get(final String path) {
        return files.get("/console".equals(path) || "/console/".equals(path) ? "/" : path);
    }

    private static Asset read(final String resource, final String contentType) {
        try (InputStream in = ConsoleAssets.class.getClassLoader().getResourceAsStream(resource)) {
            if (in == null) {
                throw new UncheckedIOException(new IOException("the console's file " + resource
                    + " is not on the class path: rebuild the jar"));
            }
            return new Asset(in.readAllBytes(), contentType);
        } catch (final IOException e) {
            throw new UncheckedIOException(e);
        }
    }
}
