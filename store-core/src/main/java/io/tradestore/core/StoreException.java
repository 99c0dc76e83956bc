package io.tradestore.core;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.AccessDeniedException;
import java.nio.file.DirectoryNotEmptyException;
import java.nio.file.FileAlreadyExistsException;
import java.nio.file.FileSystemException;
import java.nio.file.FileSystemLoopException;
import java.nio.file.Files;
import java.nio.file.InvalidPathException;
import java.nio.file.NoSuchFileException;
import java.nio.file.NotDirectoryException;
import java.nio.file.NotLinkException;
import java.nio.file.Path;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * The one unchecked exception family of tradestore: every expected failure carries a message that says what was wrong,
 * where, and what to do about it.
 */
public class StoreException extends RuntimeException {
    private static final long serialVersionUID = 1L;

    /**
     * Creates an exception with a user-facing message.
     *
     * @param message what went wrong, in {@code key=value} detail where it helps.
     */
    public StoreException(final String message) {
        super(message);
    }

    /**
     * Creates an exception with a user-facing message and the low-level cause.
     *
     * @param message what went wrong.
     * @param cause   the underlying failure, kept for logs.
     */
    public StoreException(final String message, final Throwable cause) {
        super(message, cause);
    }

    /** The most characters of a name from the input that a message repeats. */
    public static final int ECHO_CHARS = 64;

    /**
     * @param name a name from the input (a table or column that does not exist), of any length.
     * @return the name as a message repeats it: whole up to {@link #ECHO_CHARS} characters, else its start and its
     *     length, so that a 1 MB name does not come back in a 1 MB error.
     */
    public static String echo(final String name) {
        if (name == null || name.length() <= ECHO_CHARS) {
            return name;
        }
        return name.substring(0, ECHO_CHARS) + "... (" + name.length() + " characters)";
    }

    /** The file-system exceptions whose message is only the path, with the words for each. */
    private static final List<Map.Entry<Class<? extends IOException>, String>> REASONS = List.of(
        Map.entry(AccessDeniedException.class, "permission denied"),
        Map.entry(NotDirectoryException.class, "not a directory"),
        Map.entry(FileAlreadyExistsException.class, "already exists"),
        Map.entry(DirectoryNotEmptyException.class, "directory not empty"),
        Map.entry(NotLinkException.class, "not a symbolic link"),
        Map.entry(FileSystemLoopException.class, "a cycle of symbolic links"));

    /**
     * Says why a file operation failed, in words that follow the path a message names ({@code "cannot read " + file +
     * ": " + reason(e)}). Java's file-system exceptions ({@code NoSuchFileException}, {@code AccessDeniedException},
     * ...) carry only the path as their message, so repeating {@code getMessage()} said {@code cannot read F: F}.
     *
     * @param e the failure: an {@link IOException} (or an {@link UncheckedIOException} around one); anything else
     *     answers its own message.
     * @return the reason: {@code no such file or directory}, {@code its directory D does not exist} (a file
     *     to create under a missing directory), {@code permission denied}, {@code not a directory}, {@code already
     * exists}, the operating system's reason of a {@code FileSystemException} in lower case ({@code read-only file
     * system}), or the exception's message.
     */
    public static String reason(final Throwable e) {
        final Throwable io = e instanceof UncheckedIOException && e.getCause() != null ? e.getCause() : e;
        if (io instanceof NoSuchFileException) {
            final Path parent = parent(((NoSuchFileException) io).getFile());
            return parent != null && !Files.isDirectory(parent) ? "its directory " + parent
                + " does not exist" : "no such file or directory";
        }
        for (final Map.Entry<Class<? extends IOException>, String> r : REASONS) {
            if (r.getKey().isInstance(io)) {
                return r.getValue();
            }
        }
        if (io instanceof FileSystemException) {
            // the operating system's words ("Not a directory", "No space left on device"), else only the path
            final String osReason = ((FileSystemException) io).getReason();
            return osReason == null || osReason.isBlank() ? "input/output error" : lowerFirst(osReason);
        }
        final String m = io.getMessage();
        if (m == null || m.isBlank()) {
            return io instanceof IOException ? "input/output error" : "unexpected error";
        }
        return m; // an IOException's own words ("No space left on device") as they are
    }

    private static Path parent(final String file) {
        try {
            return file == null ? null : Path.of(file).getParent();
        } catch (final InvalidPathException e) {
            return null;
        }
    }

    /** @return the text with its first letter in lower case when the second is too ("Is a directory", not "EOF"). */
    private static String lowerFirst(final String s) {
        return s.length() > 1 && Character.isUpperCase(s.charAt(0)) && !Character.isUpperCase(s.charAt(1))
            ? s.substring(0, 1).toLowerCase(Locale.ROOT) + s.substring(1) : s;
    }
}
