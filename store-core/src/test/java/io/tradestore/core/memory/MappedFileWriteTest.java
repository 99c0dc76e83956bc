package io.tradestore.core.memory;

import java.nio.file.Path;

import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import io.tradestore.core.StoreException;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * {@link MappedFile#write}: bytes written with write(2) are what the mapping reads at once, at any offset and across
 * page boundaries, and the file keeps them after it is closed and mapped again; writes outside the file, into a
 * read-only mapping or a closed one are refused with a message, never a crash.
 */
class MappedFileWriteTest {
    private static final long LENGTH = 3 * 4096 + 100;

    @TempDir
    Path dir;

    @BeforeEach
    void onlyWhereAvailable() {
        Assumptions.assumeTrue(MappedFile.writeAvailable(), "write(2) through net.openhft:posix is not available here");
    }

    @Test
    void shouldWriteBytesTheMappingReadsAtOnceAndTheFileKeeps() {
        final Path file = dir.resolve("f");
        final long src = NativeMemory.allocate(LENGTH);
        try {
            for (long i = 0; i < LENGTH; i++) {
                NativeMemory.putByte(src + i, (byte) (i * 31 + 7));
            }
            try (MappedFile m = MappedFile.create(file, LENGTH, FileAllocator.platform())) {
                // a piece across a page boundary, then the head, then the tail up to the last byte
                m.write(4000, src + 4000, 5000);
                m.write(0, src, 4000);
                m.write(9000, src + 9000, LENGTH - 9000);
                m.write(17, src, 0);
                for (long i = 0; i < LENGTH; i++) {
                    assertThat(NativeMemory.getByte(m.address() + i)).as("byte %d", i).isEqualTo((byte) (i * 31 + 7));
                }
            }
            try (MappedFile m = MappedFile.open(file, LENGTH, false)) {
                for (long i = 0; i < LENGTH; i += 97) {
                    assertThat(NativeMemory.getByte(m.address() + i)).isEqualTo((byte) (i * 31 + 7));
                }
            }
        } finally {
            NativeMemory.free(src, LENGTH);
        }
    }

    @Test
    void shouldRefuseWritesOutsideTheFileIntoReadOnlyOrClosedMappings() {
        final Path file = dir.resolve("f");
        final long src = NativeMemory.allocate(16);
        try {
            final MappedFile m = MappedFile.create(file, LENGTH, FileAllocator.platform());
            assertThatThrownBy(() -> m.write(LENGTH - 8, src, 16)).isInstanceOf(StoreException.class)
                .hasMessageContaining("write outside");
            assertThatThrownBy(() -> m.write(-1, src, 1)).isInstanceOf(StoreException.class)
                .hasMessageContaining("write outside");
            m.close();
            assertThatThrownBy(() -> m.write(0, src, 1)).isInstanceOf(StoreException.class)
                .hasMessageContaining("closed");
            try (MappedFile r = MappedFile.open(file, LENGTH, false)) {
                assertThatThrownBy(() -> r.write(0, src, 1)).isInstanceOf(StoreException.class)
                    .hasMessageContaining("read-only");
            }
        } finally {
            NativeMemory.free(src, 16);
        }
    }
}
