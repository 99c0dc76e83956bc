package io.tradestore.core.ingest;

import io.tradestore.core.memory.NativeMemory;

/**
 * Bytes of one input file available to a chunk parser: {@code [baseOffset, limitOffset)} of the file (of the
 * decompressed stream for gzip) at {@code base}. Records must start before {@code stopOffset}; they may run on to
 * {@code limitOffset}. A mapped file offers everything up to its end; a stream offers one buffer, and a record cut
 * by the buffer's end makes the chunk "incomplete" so the appender re-parses it joined with the next buffer.
 */
final class CsvInput {
    final CsvFormat format;
    final long base;
    final long baseOffset;
    /** Where this chunk's first record is assumed to start (the appender checks the assumption). */
    final long startOffset;
    final long stopOffset;
    final long limitOffset;
    final boolean eofAtLimit;
    /** Bytes of native memory this input owns at {@code base} (stream buffers), 0 for a mapping it only borrows. */
    private long ownedLength;

    CsvInput(final CsvFormat format, final long base, final long baseOffset, final long startOffset,
        final long stopOffset,
             final long limitOffset, final boolean eofAtLimit, final long ownedLength) {
        this.format = format;
        this.base = base;
        this.baseOffset = baseOffset;
        this.startOffset = startOffset;
        this.stopOffset = stopOffset;
        this.limitOffset = limitOffset;
        this.eofAtLimit = eofAtLimit;
        this.ownedLength = ownedLength;
    }

    long address(final long offset) {
        return base + (offset - baseOffset);
    }

    /**
     * @param f the file's header mapping. @param start where records start. @return this input's bytes for that format.
     */
    CsvInput withFormat(final CsvFormat f, final long start) {
        final CsvInput in = new CsvInput(f, base, baseOffset, start, stopOffset, limitOffset, eofAtLimit, ownedLength);
        ownedLength = 0;
        return in;
    }

    /** Frees an owned buffer; idempotent. */
    void release() {
        if (ownedLength > 0) {
            NativeMemory.free(base, ownedLength);
            ownedLength = 0;
        }
    }
}
