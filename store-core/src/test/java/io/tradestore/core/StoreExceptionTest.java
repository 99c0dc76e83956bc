package io.tradestore.core;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.AccessDeniedException;
import java.nio.file.FileAlreadyExistsException;
import java.nio.file.FileSystemException;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.NotDirectoryException;
import java.nio.file.Path;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** {@link StoreException#reason}: file errors say why in words, never only the path again. */
class StoreExceptionTest {
    @TempDir
    Path dir;

    @Test
    void shouldSayWhyAFileOperationFailedInWordsNotThePath() throws IOException {
        final String f = dir.resolve("f").toString();
        assertThat(StoreException.reason(new NoSuchFileException(f))).isEqualTo("no such file or directory");
        assertThat(StoreException.reason(new NoSuchFileException(dir.resolve("nodir").resolve("x.csv").toString())))
            .isEqualTo("its directory " + dir.resolve("nodir") + " does not exist");
        assertThat(StoreException.reason(new NoSuchFileException("x.csv"))).isEqualTo("no such file or directory");
        assertThat(StoreException.reason(new AccessDeniedException(f))).isEqualTo("permission denied");
        assertThat(StoreException.reason(new NotDirectoryException(f))).isEqualTo("not a directory");
        assertThat(StoreException.reason(new FileAlreadyExistsException(f))).isEqualTo("already exists");
        assertThat(StoreException.reason(new FileSystemException(f, null, "No space left on device")))
            .isEqualTo("no space left on device");
        assertThat(StoreException.reason(new FileSystemException(f))).isEqualTo("input/output error");
        assertThat(StoreException.reason(new IOException("Is a directory"))).isEqualTo("Is a directory");
        assertThat(StoreException.reason(new IOException())).isEqualTo("input/output error");
        assertThat(StoreException.reason(new UncheckedIOException(new AccessDeniedException(f))))
            .isEqualTo("permission denied");
        assertThat(StoreException.reason(new StoreException("EOF inside a quoted field")))
            .isEqualTo("EOF inside a quoted field");
    }

    @Test
    void shouldNameTheReasonTheOperatingSystemGaveForARealFailure() throws IOException {
        final Path file = Files.writeString(dir.resolve("plain"), "x");
        final IOException e = catchIo(() -> Files.createDirectories(file.resolve("sub")));
        assertThat(e.getMessage()).contains(file.toString());
        assertThat(StoreException.reason(e)).isEqualTo("not a directory");
        final IOException missing = catchIo(() -> Files.readString(dir.resolve("missing.json")));
        assertThat(StoreException.reason(missing)).isEqualTo("no such file or directory");
    }

    /** A file operation that must fail. */
    interface IoAction {
        void run() throws IOException;
    }

    private static IOException catchIo(final IoAction action) {
        try {
            action.run();
        } catch (final IOException e) {
            return e;
        }
        throw new AssertionError("expected an IOException");
    }
}
