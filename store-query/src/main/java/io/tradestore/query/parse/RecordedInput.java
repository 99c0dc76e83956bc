package io.tradestore.query.parse;

import java.io.IOException;
import java.io.InputStream;
import java.util.Arrays;

/**
 * The bytes the streaming reader read, kept so that the tree reading can read them again when it gives up: the
 * same bytes, then the same read failure if one ended them, then the rest of the stream.
 */
final class RecordedInput extends InputStream {
    private final InputStream source;
    private byte[] bytes = new byte[1024];
    private int length;
    private IOException failure;
    private final byte[] one = new byte[1];

    RecordedInput(final InputStream source) {
        this.source = source;
    }

    @Override
    public int read() throws IOException {
        return read(one, 0, 1) < 0 ? -1 : one[0] & 0xFF;
    }

    @Override
    public int read(final byte[] b, final int off, final int len) throws IOException {
        final int n;
        try {
            n = source.read(b, off, len);
        } catch (final IOException e) {
            failure = e;
            throw e;
        }
        if (n > 0) {
            if (length + n > bytes.length) {
                bytes = Arrays.copyOf(bytes, Math.max(bytes.length * 2, length + n));
            }
            System.arraycopy(b, off, bytes, length, n);
            length += n;
        }
        return n;
    }

    /** The source stays open for the tree reading and {@link CheckedInput#finish}. */
    @Override
    public void close() {
    }

    /** @return the recorded bytes, then the recorded failure (thrown once), then the rest of the source. */
    InputStream replay() {
        return new InputStream() {
            private int position;
            private IOException pending = failure;

            @Override
            public int read() throws IOException {
                return read(one, 0, 1) < 0 ? -1 : one[0] & 0xFF;
            }

            @Override
            public int read(final byte[] b, final int off, final int len) throws IOException {
                if (position < length) {
                    final int n = Math.min(len, length - position);
                    System.arraycopy(bytes, position, b, off, n);
                    position += n;
                    return n;
                }
                if (pending != null) {
                    final IOException e = pending;
                    pending = null;
                    throw e;
                }
                return source.read(b, off, len);
            }
        };
    }
}
