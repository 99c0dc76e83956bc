package io.tradestore.parquet;

import java.io.IOException;
import java.io.OutputStream;
import java.util.zip.CRC32C;

import org.apache.parquet.io.OutputFile;
import org.apache.parquet.io.PositionOutputStream;

/**
 * A Parquet output over any stream (a temporary file, an HTTP response): it counts the bytes for the writer's offsets
 * and checksums them for the manifest. Closing the writer flushes the stream but leaves closing it to its owner, who
 * may still have to sync it.
 */
final class StreamOutputFile implements OutputFile {
    private final OutputStream target;
    private final CRC32C crc = new CRC32C();
    private long position;

    StreamOutputFile(final OutputStream target) {
        this.target = target;
    }

    /** @return bytes written. */
    long length() {
        return position;
    }

    /** @return the CRC-32C of the bytes written. */
    long crc32c() {
        return crc.getValue();
    }

    @Override
    public PositionOutputStream create(final long blockSizeHint) {
        return new PositionOutputStream() {
            @Override
            public long getPos() {
                return position;
            }

            @Override
            public void write(final int b) throws IOException {
                target.write(b);
                crc.update(b);
                position++;
            }

            @Override
            public void write(final byte[] b, final int off, final int len) throws IOException {
                target.write(b, off, len);
                crc.update(b, off, len);
                position += len;
            }

            @Override
            public void flush() throws IOException {
                target.flush();
            }

            @Override
            public void close() throws IOException {
                target.flush();
            }
        };
    }

    @Override
    public PositionOutputStream createOrOverwrite(final long blockSizeHint) {
        return create(blockSizeHint);
    }

    @Override
    public boolean supportsBlockSize() {
        return false;
    }

    @Override
    public long defaultBlockSize() {
        return 0;
    }
}
