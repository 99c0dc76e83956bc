package io.tradestore.server.pg;

import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Reads a value given to {@code SET} as PostgreSQL 15 reads it for that parameter, and writes it as {@code SHOW}
 * shows it: times with the largest unit that divides them ({@code 5000} is {@code 5s}), integers within their range,
 * lists joined with commas. A value PostgreSQL would refuse is refused with its SQLSTATE and message.
 */
final class SessionValues {
    private static final Pattern TIME = Pattern.compile("(-?\\d+)\\s*(us|ms|s|min|h|d)?");
    private static final String[] UNITS = {"d", "h", "min", "s", "ms"};
    private static final long[] UNIT_MS = {86_400_000L, 3_600_000L, 60_000L, 1_000L, 1L};
    /** The spellings of UTC that PostgreSQL's zone database has, by lower case, as SHOW writes them. */
    private static final Map<String, String> UTC_NAMES = Map.of("utc", "UTC", "etc/utc", "Etc/UTC", "gmt", "GMT",
        "etc/gmt", "Etc/GMT", "universal", "Universal", "zulu", "Zulu", "etc/universal", "Etc/Universal",
        "etc/zulu", "Etc/Zulu", "z", "Z");

    private SessionValues() {
    }

    /**
     * @param key     the parameter's lower-case name.
     * @param name    its name as PostgreSQL writes it, for messages.
     * @param values  the value's items as written.
     * @param current its value now (a {@code DateStyle} of one item keeps the other).
     * @return the value as {@code SHOW} will show it.
     * @throws PgFailure 22023 for a value the parameter does not take; 0A000 for one tradestore does not serve.
     */
    static String normalise(final String key, final String name, final List<String> values, final String current) {
        final String one = String.join(", ", values);
        switch (key) {
            case "statement_timeout":
            case "lock_timeout":
            case "idle_in_transaction_session_timeout":
            case "idle_session_timeout":
                return time(name, one);
            case "extra_float_digits":
                return integer(name, one, -15, 3);
            case "timezone":
                return timeZone(one);
            case "datestyle":
                return dateStyle(values, current);
            case "client_encoding":
                return encoding(one);
            case "application_name":
                // PostgreSQL keeps printable ASCII of up to 63 bytes
                final String ascii = one.replaceAll("[^\\x20-\\x7E]", "?");
                return ascii.length() > 63 ? ascii.substring(0, 63) : ascii;
            case "search_path":
                final StringBuilder b = new StringBuilder();
                for (final String v : values) {
                    b.append(b.length() == 0 ? "" : ", ").append(CatalogFunctions.quoteIdent(v));
                }
                return b.toString();
            default:
                return one;
        }
    }

    /**
     * @param shown a time parameter's value as {@link #normalise} wrote it.
     * @return it in milliseconds.
     */
    static long milliseconds(final String shown) {
        final Matcher m = TIME.matcher(shown);
        if (!m.matches()) {
            return 0;
        }
        final long n = Long.parseLong(m.group(1));
        for (int i = 0; i < UNITS.length; i++) {
            if (UNITS[i].equals(m.group(2))) {
                return n * UNIT_MS[i];
            }
        }
        return n;
    }

    private static String time(final String name, final String value) {
        final Matcher m = TIME.matcher(value.strip());
        if (!m.matches()) {
            throw invalid(name, value, "Valid units for this parameter are \"us\", \"ms\", \"s\", \"min\", \"h\","
                + " and \"d\".");
        }
        final long n;
        try {
            n = Long.parseLong(m.group(1));
        } catch (final NumberFormatException e) {
            throw invalid(name, value, "");
        }
        final String unit = m.group(2) == null ? "ms" : m.group(2);
        final long ms;
        if (unit.equals("us")) {
            ms = (long) Math.rint(n / 1_000.0); // PostgreSQL's parse_int rounds to the nearest millisecond
        } else {
            long per = 1;
            for (int i = 0; i < UNITS.length; i++) {
                if (UNITS[i].equals(unit)) {
                    per = UNIT_MS[i];
                }
            }
            ms = n > Integer.MAX_VALUE / per ? Long.MAX_VALUE : n * per;
        }
        if (ms < 0 || ms > Integer.MAX_VALUE) {
            throw new PgFailure(PgError.of(PgError.INVALID_PARAMETER_VALUE, n + " " + unit
                + " is outside the valid range for parameter \"" + name + "\" (0 .. 2147483647)"));
        }
        if (ms == 0) {
            return "0";
        }
        for (int i = 0; i < UNITS.length; i++) {
            if (ms % UNIT_MS[i] == 0) {
                return ms / UNIT_MS[i] + UNITS[i];
            }
        }
        return ms + "ms";
    }

    private static String integer(final String name, final String value, final int min, final int max) {
        final int n;
        try {
            n = Integer.parseInt(value.strip());
        } catch (final NumberFormatException e) {
            throw new PgFailure(PgError.of(PgError.INVALID_PARAMETER_VALUE, "invalid value for parameter \""
                + name + "\": \"" + value + "\""));
        }
        if (n < min || n > max) {
            throw new PgFailure(PgError.of(PgError.INVALID_PARAMETER_VALUE, n + " is outside the valid range"
                + " for parameter \"" + name + "\" (" + min + " .. " + max + ")"));
        }
        return Integer.toString(n);
    }

    private static String timeZone(final String value) {
        final String v = value.strip();
        final String utc = UTC_NAMES.get(v.toLowerCase(Locale.ROOT));
        if (utc != null) {
            return utc;
        }
        try {
            java.time.ZoneId.of(v);
        } catch (final java.time.DateTimeException e) {
            throw new PgFailure(PgError.of(PgError.INVALID_PARAMETER_VALUE, "invalid value for parameter "
                + "\"TimeZone\": \"" + v + "\""));
        }
        // date_trunc, zone-less literals and the text of timestamps would all have to follow the zone
        throw new PgFailure(PgError.of(PgError.FEATURE_NOT_SUPPORTED, "tradestore reads and writes timestamps in "
            + "UTC only; TimeZone '" + v + "' is not supported (set it in the client, which converts the +00 "
            + "timestamps it receives)"));
    }

    private static String dateStyle(final List<String> values, final String current) {
        String order = current.substring(current.indexOf(',') + 1).strip();
        for (final String item : values) {
            for (final String part : item.split("\\s*,\\s*")) {
                switch (part.strip().toLowerCase(Locale.ROOT)) {
                    case "iso":
                        break;
                    case "mdy":
                    case "us":
                    case "noneuropean":
                    case "non-european":
                        order = "MDY";
                        break;
                    case "dmy":
                    case "euro":
                    case "european":
                        order = "DMY";
                        break;
                    case "ymd":
                        order = "YMD";
                        break;
                    case "sql":
                    case "postgres":
                    case "german":
                        throw new PgFailure(PgError.of(PgError.FEATURE_NOT_SUPPORTED, "tradestore writes dates in "
                            + "the ISO style only; DateStyle " + part.strip() + " is not supported"));
                    default:
                        throw new PgFailure(PgError.of(PgError.INVALID_PARAMETER_VALUE, "invalid value for "
                            + "parameter \"DateStyle\": \"" + String.join(", ", values) + "\""));
                }
            }
        }
        return "ISO, " + order;
    }

    private static String encoding(final String value) {
        final String e = value.strip().toLowerCase(Locale.ROOT).replace("-", "").replace("_", "");
        if (!e.equals("utf8") && !e.equals("unicode") && !e.equals("default")) {
            throw new PgFailure(PgError.of(PgError.FEATURE_NOT_SUPPORTED, "tradestore writes UTF8 only; "
                + "client_encoding " + value.strip() + " is not supported"));
        }
        return "UTF8";
    }

    private static PgFailure invalid(final String name, final String value, final String hint) {
        return new PgFailure(PgError.of(PgError.INVALID_PARAMETER_VALUE, "invalid value for parameter \""
            + name + "\": \"" + value + "\"" + (hint.isEmpty() ? "" : "; " + hint)));
    }
}
