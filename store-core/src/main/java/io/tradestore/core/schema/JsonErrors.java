package io.tradestore.core.schema;

import java.util.Locale;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import com.fasterxml.jackson.core.JacksonException;
import com.fasterxml.jackson.core.JsonLocation;

/**
 * Says in a user's words why a text is not JSON, from what Jackson threw. Jackson's own messages name its classes and
 * feature switches ("bound as `com.fasterxml.jackson.databind.JsonNode`", "enable `JsonReadFeature...` to allow"),
 * which a user can neither read nor act on: the query endpoint, the CLI and the schema reader show these words instead,
 * with the line and column where Jackson stopped.
 */
public final class JsonErrors {
    private static final Pattern END_INSIDE = Pattern.compile(
        "Unexpected end-of-input: expected close marker for (Array|Object) \\(start marker at \\[.*?line: (\\d+), "
        + "column: (\\d+)\\]\\)");
    private static final Pattern END_BETWEEN =
        Pattern.compile("^Unexpected end-of-input within/between (Array|Object) entries");
    private static final Pattern LIMIT =
        Pattern.compile("(Document nesting depth|Number value length|String value length|Name length)"
        + " \\((\\d+)\\) exceeds the maximum allowed \\((\\d+)");
    private static final Pattern OUT_OF_RANGE =
        Pattern.compile("^Value \"(.*)\" can not be deserialized as `java\\.math\\.Big(?:Decimal|Integer)`");
    private static final Pattern NON_STANDARD = Pattern.compile("^Non-standard token '([^']*)'");
    /** Jackson's advice and internals, wherever they stand in a message. */
    private static final Pattern INTERNALS = Pattern.compile(
        ": enable `[^`]*` to allow| \\(from `[^`]*`\\)| \\(bound as `[^`]*`\\)|: not allowed as per `[^`]*`"
            + "|Source: REDACTED \\(`[^`]*` disabled\\); | \\(not recognized as one since Feature '[A-Z_]+' not "
            + "enabled for parser\\)");

    private JsonErrors() {
    }

    /**
     * @param e what Jackson threw while reading a text.
     * @return why the text is not JSON, ending in {@code (line L, column C)} when Jackson knows where.
     */
    public static String describe(final JacksonException e) {
        return words(e.getOriginalMessage()) + at(e.getLocation());
    }

    /** @return the position as " (line L, column C)", or "" when not known. */
    private static String at(final JsonLocation location) {
        return location == null || location.getLineNr() < 1 ? "" : " (line " + location.getLineNr() + ", column "
            + location.getColumnNr() + ")";
    }

    /**
     * @param message Jackson's message without its location ({@code getOriginalMessage()}), or that of an exception it
     *                let through.
     * @return why the text is not JSON, in a user's words.
     */
    public static String words(final String message) {
        if (message == null) {
            return "the text is not JSON";
        }
        if (message.startsWith("Trailing token")) {
            return "more text follows the end of the JSON value";
        }
        Matcher m = END_INSIDE.matcher(message);
        if (m.find()) {
            return "the text ends inside the " + m.group(1).toLowerCase(Locale.ROOT) + " opened at line " + m.group(2)
                + ", column " + m.group(3);
        }
        m = END_BETWEEN.matcher(message);
        if (m.find()) {
            return "the text ends inside an " + m.group(1).toLowerCase(Locale.ROOT);
        }
        m = LIMIT.matcher(message);
        if (m.find()) {
            switch (m.group(1)) {
                case "Document nesting depth":
                    return "the JSON nests deeper than " + m.group(3) + " levels";
                case "Number value length":
                    return "a number is longer than " + m.group(3) + " characters (" + m.group(2) + ")";
                case "String value length":
                    return "a string is longer than " + m.group(3) + " characters (" + m.group(2) + ")";
                default:
                    return "a field name is longer than " + m.group(3) + " characters (" + m.group(2) + ")";
            }
        }
        m = OUT_OF_RANGE.matcher(message);
        if (m.find()) {
            return "the number " + m.group(1) + " is out of range: its exponent does not fit";
        }
        m = NON_STANDARD.matcher(message);
        if (m.find()) {
            return "'" + m.group(1) + "' is not a JSON value (JSON numbers have no NaN or Infinity)";
        }
        if (message.startsWith("Unexpected character ('/' (code 47)): maybe a (non-standard) comment?")) {
            return "unexpected character '/': JSON has no comments";
        }
        return INTERNALS.matcher(message).replaceAll("");
    }
}
