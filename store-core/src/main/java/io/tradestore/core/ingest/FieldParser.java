package io.tradestore.core.ingest;

import io.tradestore.core.memory.NativeMemory;

/**
 * Parses one field's bytes, in place in native memory, into a primitive value: integers, exact decimals, ISO-8601 or
 * epoch-nanosecond timestamps, doubles, sides and single characters. No String, no object per field.
 *
 * <p>Every {@code parse...} method reads from {@code p} and stops at the first byte that cannot continue the value (or
 * at {@code limit}); it returns the address of that byte and leaves the value in {@link #value}, or returns -1 with
 * the reason in {@link #error}. The caller then checks that the returned address holds the field terminator, so
 * trailing junk ({@code 12.3.4}, {@code 1e5}) fails there as "not a decimal".
 */
final class FieldParser {
    static final int OK = 0;
    /** Not a value of the type at all. */
    static final int E_SYNTAX = 1;
    /** A value of the type, but outside the column's range. */
    static final int E_RANGE = 2;
    /** A decimal with more fraction digits than the column's scale. */
    static final int E_SCALE = 3;
    /** A timestamp whose zone offset lies outside -18:00 to +18:00 (java.time's {@code ZoneOffset} range). */
    static final int E_OFFSET = 4;
    /** The largest zone offset, in seconds either way (18 hours, as {@code ZoneOffset.MAX}). */
    private static final int MAX_OFFSET_SECONDS = 18 * 3600;

    static final long[] POW10 = TenPowers.LONGS;
    private static final double[] DOUBLE_POW10 = TenPowers.DOUBLES;
    private static final long MAX_DIV_10 = Long.MAX_VALUE / 10;
    /** Years whose nanosecond timestamps fit a long on both ends of every day (1677-09-21 .. 2262-04-11). */
    private static final int MIN_YEAR = 1678;
    private static final int MAX_YEAR = 2261;
    private static final long NANOS_PER_SECOND = 1_000_000_000L;

    private static final long ZEROS = 0x3030303030303030L;
    private static final long HIGH_NIBBLES = 0xF0F0F0F0F0F0F0F0L;
    // "hh:mm:ss" read little-endian: bytes 2 and 5 are the colons, the others digits
    private static final long HMS_COLONS_MASK = 0x0000FF0000FF0000L;
    private static final long HMS_COLONS = 0x00003A00003A0000L;
    private static final long HMS_DIGITS_HIGH = 0xF0F000F0F000F0F0L;
    private static final long HMS_ZEROS = 0x3030003030003030L;
    private static final long HMS_ZEROS_AND_COLONS = 0x30303A30303A3030L;

    /** The parsed value (doubles as raw bits). */
    long value;
    /** Why the last parse returned -1. */
    int error;
    /** Fraction digits seen by the last decimal parse (for the scale error message). */
    int fractionDigits;
    // the last date seen (timestamps in a file mostly share their date): its raw bytes and epoch day
    private boolean cachedDate;
    private long cachedDateWord = -1;
    private short cachedDayBytes = -1;
    private long cachedEpochDay;

    /**
     * Parses a signed integer within {@code [-max, max]}.
     *
     * @param p     first byte.
     * @param limit end of readable memory.
     * @param max   largest magnitude allowed.
     * @return the address after the last digit, or -1.
     */
    long parseInteger(final long p, final long limit, final long max) {
        if (p + 17 <= limit) {
            // fast path: an optional sign and up to 15 digits from two 8-byte reads (no overflow possible)
            final byte b = NativeMemory.getByte(p);
            final boolean negative = b == '-';
            final long q = negative || b == '+' ? p + 1 : p;
            final long word = NativeMemory.getLong(q);
            final int n = leadingDigits(word);
            if (n > 0) {
                long v = eightDigits(word, n);
                int digits = n;
                if (n == 8) {
                    final long word2 = NativeMemory.getLong(q + 8);
                    final int n2 = leadingDigits(word2);
                    if (n2 == 8) {
                        return parseIntegerSlow(p, limit, max);
                    }
                    if (n2 > 0) {
                        v = v * POW10[n2] + eightDigits(word2, n2);
                        digits += n2;
                    }
                }
                if (v <= max) {
                    value = negative ? -v : v;
                    return q + digits;
                }
            }
        }
        return parseIntegerSlow(p, limit, max);
    }

    private long parseIntegerSlow(final long p, final long limit, final long max) {
        return parseFixedSlow(p, limit, 0, false, max);
    }

    /**
     * Parses an exact decimal with at most {@code scale} fraction digits into a mantissa of that scale.
     *
     * @param p     first byte.
     * @param limit end of readable memory.
     * @param scale the column's scale (0 to 18).
     * @return the address after the last digit, or -1.
     */
    long parseDecimal(final long p, final long limit, final int scale) {
        if (p + 17 <= limit && scale <= 11) {
            final byte b = NativeMemory.getByte(p);
            final boolean negative = b == '-';
            final long fast = fastDecimal(negative || b == '+' ? p + 1 : p, negative, scale);
            if (fast > 0) {
                return fast;
            }
        }
        return parseDecimalSlow(p, limit, scale);
    }

    private long parseDecimalSlow(final long p, final long limit, final int scale) {
        return parseFixedSlow(p, limit, scale, true, Long.MAX_VALUE);
    }

    /**
     * The byte loop behind both slow paths: an optional sign, digits and, when {@code point}, an optional point with
     * fraction digits, into a mantissa of {@code scale} (an integer is a decimal of scale 0 without a point).
     *
     * @param p     first byte.
     * @param limit end of readable memory.
     * @param scale fraction digits of the mantissa (0 to 18).
     * @param point whether a point and fraction digits may follow the integer digits.
     * @param max   largest magnitude of the mantissa.
     * @return the address after the last digit, or -1.
     */
    private long parseFixedSlow(long p, final long limit, final int scale, final boolean point, final long max) {
        boolean negative = false;
        final byte b = NativeMemory.getByte(p);
        if (b == '-') {
            negative = true;
            p++;
        } else if (b == '+') {
            p++;
        }
        final long start = p;
        long intPart = 0;
        boolean overflow = false;
        while (p < limit) {
            final int d = NativeMemory.getByte(p) - '0';
            if (d < 0 || d > 9) {
                break;
            }
            if (intPart > MAX_DIV_10 || (intPart == MAX_DIV_10 && d > 7)) {
                overflow = true;
            } else {
                intPart = intPart * 10 + d;
            }
            p++;
        }
        boolean digits = p > start;
        long frac = 0;
        int fd = 0;
        if (point && p < limit && NativeMemory.getByte(p) == '.') {
            p++;
            final long fracStart = p;
            while (p < limit) {
                final int d = NativeMemory.getByte(p) - '0';
                if (d < 0 || d > 9) {
                    break;
                }
                if (fd < 18) {
                    frac = frac * 10 + d;
                }
                fd++;
                p++;
            }
            digits |= p > fracStart;
        }
        if (!digits) {
            error = E_SYNTAX;
            return -1;
        }
        if (fd > scale) {
            fractionDigits = fd;
            error = E_SCALE;
            return -1;
        }
        // fd <= scale <= 18: the fraction at the mantissa's scale is below 10^18, no overflow
        final long fraction = frac * POW10[scale - fd];
        if (overflow || intPart > (max - fraction) / POW10[scale]) {
            error = E_RANGE;
            return -1;
        }
        final long m = intPart * POW10[scale] + fraction;
        value = negative ? -m : m;
        return p;
    }

    /** The common decimal: 1 to 7 integer digits, a point, 1 to min(scale, 7) fraction digits; 0 when not that. */
    private long fastDecimal(final long p, final boolean negative, final int scale) {
        final long word = NativeMemory.getLong(p);
        final int n = leadingDigits(word);
        if (n == 0 || n == 8 || ((word >>> (n << 3)) & 0xFF) != '.') {
            return 0;
        }
        final long q = p + n + 1;
        final int pointShift = (n + 1) << 3;
        final long after = pointShift == 64 ? 0 : word >>> pointShift;
        final int inWord = leadingDigits(after);
        if (inWord > 0 && n + 1 + inWord < 8 && inWord <= scale) {
            // the whole value and its terminator in the first read ("204.19,"): drop the point, convert once
            final long digits = (word & ((1L << (n << 3)) - 1)) | (after << (n << 3));
            final long m = eightDigits(digits, n + inWord) * POW10[scale - inWord];
            value = negative ? -m : m;
            return q + inWord;
        }
        final long fw = NativeMemory.getLong(q);
        final int fd = leadingDigits(fw);
        if (fd == 0 || fd == 8 || fd > scale) {
            return 0;
        }
        final long m = eightDigits(word, n) * POW10[scale] + eightDigits(fw, fd) * POW10[scale - fd];
        value = negative ? -m : m;
        return q + fd;
    }

    /**
     * Parses a timestamp: ISO-8601 {@code yyyy-MM-ddTHH:mm:ss[.f{1,9}]} with {@code Z} or an offset ({@code +HH:MM},
     * {@code +HHMM}, {@code +HH}; a space may replace the T), or integer epoch nanoseconds.
     *
     * @param p     first byte.
     * @param limit end of readable memory.
     * @return the address after the value, or -1.
     */
    long parseTimestamp(final long p, final long limit) {
        if (cachedDate && p + 32 <= limit && NativeMemory.getLong(p) == cachedDateWord
            && NativeMemory.getShort(p + 8) == cachedDayBytes) {
            final long fast = fastTime(p);
            if (fast > 0) {
                return fast;
            }
        }
        return parseTimestampSlow(p, limit);
    }

    /** {@code Thh:mm:ss.f{1,7}Z} on the cached date; 0 when not that shape. */
    private long fastTime(final long p) {
        // "hh:mm:ss" in one read: the colons exact, the six digits checked and converted as in
        // leadingDigits/eightDigits
        final long hms = NativeMemory.getLong(p + 11);
        if ((hms & HMS_COLONS_MASK) != HMS_COLONS || (hms & HMS_DIGITS_HIGH) != HMS_ZEROS
            || ((hms + 0x0606060606060606L) & HMS_DIGITS_HIGH) != HMS_ZEROS || NativeMemory.getByte(p + 10) != 'T'
            || NativeMemory.getByte(p + 19) != '.') {
            return 0;
        }
        final long d = hms - HMS_ZEROS_AND_COLONS;
        final long pairs = d * 10 + (d >>> 8);
        final int hour = (int) (pairs & 0xFF);
        final int minute = (int) ((pairs >>> 24) & 0xFF);
        final int second = (int) ((pairs >>> 48) & 0xFF);
        if (hour > 23 || minute > 59 || second > 59) {
            return 0;
        }
        final long word = NativeMemory.getLong(p + 20);
        final int n = leadingDigits(word);
        if (n == 0 || n == 8 || ((word >>> (n << 3)) & 0xFF) != 'Z') {
            return 0;
        }
        final long seconds = cachedEpochDay * 86_400L + hour * 3600L + minute * 60L + second;
        value = seconds * NANOS_PER_SECOND + eightDigits(word, n) * POW10[9 - n];
        return p + 21 + n;
    }

    private long parseTimestampSlow(final long p, final long limit) {
        if (p + 4 < limit && NativeMemory.getByte(p + 4) == '-' && isDigit(p) && isDigit(p + 1) && isDigit(p + 2)
            && isDigit(p + 3)) {
            return parseIso(p, limit);
        }
        return parseInteger(p, limit, Long.MAX_VALUE);
    }

    private long parseIso(final long p, final long limit) {
        error = E_SYNTAX;
        // yyyy-MM-ddTHH:mm:ss = 19 bytes before the optional fraction and the zone
        if (p + 20 > limit) {
            return -1;
        }
        final long dateWord = NativeMemory.getLong(p);
        final short dayBytes = NativeMemory.getShort(p + 8);
        if (cachedDate && dateWord == cachedDateWord && dayBytes == cachedDayBytes) {
            return parseTime(p, limit, cachedEpochDay);
        }
        final int year = digits4(p);
        final int month = digits2(p + 5);
        final int day = digits2(p + 8);
        final byte t = NativeMemory.getByte(p + 10);
        final int hour = digits2(p + 11);
        final int minute = digits2(p + 14);
        final int second = digits2(p + 17);
        if ((year | month | day | hour | minute | second) < 0 || NativeMemory.getByte(p + 7) != '-'
            || (t != 'T' && t != ' ') || NativeMemory.getByte(p + 13) != ':' || NativeMemory.getByte(p + 16) != ':') {
            return -1;
        }
        if (year < MIN_YEAR || year > MAX_YEAR || month < 1 || month > 12 || day < 1 || day > daysInMonth(year, month)
            || hour > 23 || minute > 59 || second > 59) {
            error = year < MIN_YEAR || year > MAX_YEAR ? E_RANGE : E_SYNTAX;
            return -1;
        }
        cachedEpochDay = daysFromCivil(year, month, day);
        cachedDateWord = dateWord;
        cachedDayBytes = dayBytes;
        cachedDate = true;
        return parseTime(p, limit, cachedEpochDay);
    }

    /** Parses from the T of a timestamp whose date (validated) is {@code epochDay}. */
    private long parseTime(final long p, final long limit, final long epochDay) {
        error = E_SYNTAX;
        final byte t = NativeMemory.getByte(p + 10);
        final int hour = digits2(p + 11);
        final int minute = digits2(p + 14);
        final int second = digits2(p + 17);
        if ((hour | minute | second) < 0 || (t != 'T' && t != ' ') || NativeMemory.getByte(p + 13) != ':'
            || NativeMemory.getByte(p + 16) != ':' || hour > 23 || minute > 59 || second > 59) {
            error = E_SYNTAX;
            return -1;
        }
        long q = p + 19;
        long nanos = 0;
        if (NativeMemory.getByte(q) == '.') {
            q++;
            if (q + 8 <= limit) {
                final long word = NativeMemory.getLong(q);
                final int n = leadingDigits(word);
                if (n > 0 && n < 8) {
                    nanos = eightDigits(word, n) * POW10[9 - n];
                    q += n;
                    return zone(q, limit, epochDay, hour, minute, second, nanos);
                }
            }
            final long fracStart = q;
            while (q < limit) {
                final int d = NativeMemory.getByte(q) - '0';
                if (d < 0 || d > 9) {
                    break;
                }
                nanos = nanos * 10 + d;
                q++;
                if (q - fracStart > 9) {
                    return -1;
                }
            }
            final int n = (int) (q - fracStart);
            if (n == 0) {
                return -1;
            }
            nanos *= POW10[9 - n];
        }
        return zone(q, limit, epochDay, hour, minute, second, nanos);
    }

    private long zone(long q, final long limit, final long epochDay, final int hour, final int minute, final int second,
                      final long nanos) {
        if (q >= limit) {
            return -1;
        }
        final byte z = NativeMemory.getByte(q);
        int offsetSeconds = 0;
        if (z == 'Z' || z == 'z') {
            q++;
        } else if (z == '+' || z == '-') {
            if (q + 3 > limit) {
                return -1;
            }
            final int oh = digits2(q + 1);
            if (oh < 0 || oh > 18) {
                return -1;
            }
            int om = 0;
            q += 3;
            if (q < limit && NativeMemory.getByte(q) == ':') {
                if (q + 3 > limit || (om = digits2(q + 1)) < 0) {
                    return -1;
                }
                q += 3;
            } else if (q + 2 <= limit && isDigit(q)) {
                if ((om = digits2(q)) < 0) {
                    return -1;
                }
                q += 2;
            }
            if (om > 59) {
                return -1;
            }
            if (oh * 3600 + om * 60 > MAX_OFFSET_SECONDS) {
                // +18:01 is an offset in form but not one java.time (or any zone) has: refused, not converted
                error = E_OFFSET;
                return -1;
            }
            offsetSeconds = (oh * 3600 + om * 60) * (z == '-' ? -1 : 1);
        } else {
            return -1;
        }
        final long seconds = epochDay * 86_400L + hour * 3600L + minute * 60L + second - offsetSeconds;
        value = seconds * NANOS_PER_SECOND + nanos;
        error = OK;
        return q;
    }

    /**
     * Parses a double: decimal digits with an optional fraction and exponent. Exact (correctly rounded) by the
     * Clinger fast path when the digits fit 2^53 and the power of ten is at most 22; otherwise through
     * {@link Double#parseDouble} (the one place a String is made, and only for such values).
     *
     * @param p     first byte.
     * @param limit end of readable memory.
     * @return the address after the value, or -1.
     */
    long parseDouble(long p, final long limit) {
        final long begin = p;
        boolean negative = false;
        final byte b = NativeMemory.getByte(p);
        if (b == '-' || b == '+') {
            negative = b == '-';
            p++;
        }
        long m = 0;
        int exp10 = 0;
        boolean any = false;
        boolean inexact = false;
        while (p < limit) {
            final int d = NativeMemory.getByte(p) - '0';
            if (d < 0 || d > 9) {
                break;
            }
            any = true;
            if (m < 100_000_000_000_000_000L) {
                m = m * 10 + d;
            } else {
                exp10++;
                inexact = true;
            }
            p++;
        }
        if (p < limit && NativeMemory.getByte(p) == '.') {
            p++;
            while (p < limit) {
                final int d = NativeMemory.getByte(p) - '0';
                if (d < 0 || d > 9) {
                    break;
                }
                any = true;
                if (m < 100_000_000_000_000_000L) {
                    m = m * 10 + d;
                    exp10--;
                } else {
                    inexact = true;
                }
                p++;
            }
        }
        if (!any) {
            if (matches(p, limit, "NaN")) {
                value = Double.doubleToRawLongBits(Double.NaN);
                return p + 3;
            }
            error = E_SYNTAX;
            return -1;
        }
        if (p < limit && (NativeMemory.getByte(p) | 0x20) == 'e') {
            final long e = parseInteger(p + 1, limit, 9999);
            if (e < 0) {
                error = E_SYNTAX;
                return -1;
            }
            exp10 += (int) value;
            p = e;
        }
        final double v;
        if (!inexact && m < (1L << 53) && Math.abs(exp10) <= 22) {
            v = exp10 >= 0 ? m * DOUBLE_POW10[exp10] : m / DOUBLE_POW10[-exp10];
        } else {
            final byte[] text = new byte[(int) (p - begin)];
            for (int i = 0; i < text.length; i++) {
                text[i] = NativeMemory.getByte(begin + i);
            }
            v = Math.abs(Double.parseDouble(new String(text, java.nio.charset.StandardCharsets.US_ASCII)));
        }
        if (Double.isInfinite(v)) {
            error = E_RANGE;
            return -1;
        }
        value = Double.doubleToRawLongBits(negative ? -v : v);
        return p;
    }

    /**
     * Parses a side: B, S, BUY or SELL in any case, to 'B' or 'S'.
     *
     * @param p     first byte.
     * @param limit end of readable memory.
     * @return the address after the value, or -1.
     */
    long parseSide(final long p, final long limit) {
        final int c = NativeMemory.getByte(p) & 0xDF;
        final int next = p + 1 < limit ? NativeMemory.getByte(p + 1) & 0xDF : 0;
        if (c == 'B') {
            value = 'B';
            return next == 'U' && p + 3 <= limit && (NativeMemory.getByte(p + 2) & 0xDF) == 'Y' ? p + 3 : p + 1;
        }
        if (c == 'S') {
            value = 'S';
            return next == 'E' && p + 4 <= limit && (NativeMemory.getByte(p + 2) & 0xDF) == 'L'
                && (NativeMemory.getByte(p + 3) & 0xDF) == 'L' ? p + 4 : p + 1;
        }
        error = E_SYNTAX;
        return -1;
    }

    /**
     * Parses one printable ASCII character.
     *
     * @param p     first byte.
     * @param limit end of readable memory.
     * @return the address after it, or -1.
     */
    long parseChar(final long p, final long limit) {
        final byte b = NativeMemory.getByte(p);
        if (b < 0x20 || b > 0x7E) {
            error = E_SYNTAX;
            return -1;
        }
        value = b;
        return p + 1;
    }

    private static boolean matches(final long p, final long limit, final String s) {
        if (p + s.length() > limit) {
            return false;
        }
        for (int i = 0; i < s.length(); i++) {
            if (NativeMemory.getByte(p + i) != s.charAt(i)) {
                return false;
            }
        }
        return true;
    }

    private static boolean isDigit(final long p) {
        final int d = NativeMemory.getByte(p) - '0';
        return d >= 0 && d <= 9;
    }

    /**
     * Counts the ASCII digits at the start of a little-endian word (first byte lowest). A byte of 0xFA or more may
     * carry into the next byte in the +6 test, but only into bytes after a non-digit, which are not counted.
     *
     * @param word eight bytes.
     * @return leading digit count, 0 to 8.
     */
    static int leadingDigits(final long word) {
        final long flags = ((word & HIGH_NIBBLES) ^ ZEROS) | (((word + 0x0606060606060606L) & HIGH_NIBBLES) ^ ZEROS);
        return Long.numberOfTrailingZeros(flags) >>> 3;
    }

    /**
     * Converts the first {@code n} (1 to 8) ASCII digits of a little-endian word (D. Lemire's SWAR method).
     *
     * @param word eight bytes, digits first.
     * @param n    how many digits.
     * @return their value.
     */
    static long eightDigits(final long word, final int n) {
        // move the n digits to the top and pad the front with '0's, which do not change the value
        final int shift = (8 - n) << 3;
        long v = shift == 0 ? word : (word << shift) | (ZEROS >>> (64 - shift));
        v -= ZEROS;
        v = v * 10 + (v >>> 8);
        v = (((v & 0x000000FF000000FFL) * 0x000F424000000064L)
            + (((v >>> 16) & 0x000000FF000000FFL) * 0x0000271000000001L)) >>> 32;
        return v;
    }

    /** @return the two-digit number at p, or a negative value when either byte is not a digit. */
    private static int digits2(final long p) {
        final int a = NativeMemory.getByte(p) - '0';
        final int b = NativeMemory.getByte(p + 1) - '0';
        if (a < 0 || a > 9 || b < 0 || b > 9) {
            return -1;
        }
        return a * 10 + b;
    }

    private static int digits4(final long p) {
        final int hi = digits2(p);
        final int lo = digits2(p + 2);
        return (hi | lo) < 0 ? -1 : hi * 100 + lo;
    }

    static int daysInMonth(final int year, final int month) {
        switch (month) {
            case 2:
                return (year % 4 == 0 && (year % 100 != 0 || year % 400 == 0)) ? 29 : 28;
            case 4:
            case 6:
            case 9:
            case 11:
                return 30;
            default:
                return 31;
        }
    }

    /** Days since 1970-01-01 of a proleptic Gregorian date (H. Hinnant's days_from_civil). */
    static long daysFromCivil(final int year, final int month, final int day) {
        final int y = month <= 2 ? year - 1 : year;
        final int era = (y >= 0 ? y : y - 399) / 400;
        final int yoe = y - era * 400;
        final int doy = (153 * (month + (month > 2 ? -3 : 9)) + 2) / 5 + day - 1;
        final int doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
        return era * 146_097L + doe - 719_468L;
    }
}
