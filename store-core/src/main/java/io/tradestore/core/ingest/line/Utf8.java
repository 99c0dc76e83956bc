package io.tradestore.core.ingest.line;

/** Well-formedness of UTF-8 byte strings (RFC 3629: no overlongs, no surrogates, nothing past U+10FFFF). */
final class Utf8 {
    private Utf8() {
    }

    /**
     * @param b the bytes.
     * @param s first byte.
     * @param e end.
     * @return whether {@code b[s, e)} is well-formed UTF-8.
     */
    static boolean valid(final byte[] b, final int s, final int e) {
        int p = s;
        while (p < e) {
            final int c = b[p] & 0xff;
            if (c < 0x80) {
                p++;
                continue;
            }
            final int n;
            final int min;
            if (c >= 0xc2 && c <= 0xdf) {
                n = 1;
                min = 0x80;
            } else if (c >= 0xe0 && c <= 0xef) {
                n = 2;
                min = 0x800;
            } else if (c >= 0xf0 && c <= 0xf4) {
                n = 3;
                min = 0x10000;
            } else {
                return false;
            }
            if (p + n >= e) {
                return false;
            }
            int cp = c & (0x3f >> n);
            for (int k = 1; k <= n; k++) {
                final int x = b[p + k] & 0xff;
                if ((x & 0xc0) != 0x80) {
                    return false;
                }
                cp = cp << 6 | x & 0x3f;
            }
            if (cp < min || cp > 0x10ffff || cp >= 0xd800 && cp <= 0xdfff) {
                return false;
            }
            p += n + 1;
        }
        return true;
    }
}
