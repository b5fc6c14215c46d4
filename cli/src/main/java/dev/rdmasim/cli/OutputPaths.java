package dev.rdmasim.cli;

import java.io.IOException;
import java.nio.file.AccessDeniedException;
import java.nio.file.FileAlreadyExistsException;
import java.nio.file.FileSystemException;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.NotDirectoryException;
import java.nio.file.Path;
import java.util.stream.Stream;

/**
 * Checks of the places a command is told to write, made before it runs: a mistake is a {@link UserError} naming the
 * option, and nothing that exists is replaced by something of another kind (a file by a directory or back).
 */
final class OutputPaths {
    private OutputPaths() {
    }

    /** {@code dir} can be an output directory: a directory, or nothing yet under a writable directory. */
    static void directory(String option, Path dir) {
        if (Files.exists(dir) && !Files.isDirectory(dir)) {
            throw new UserError(option + " " + dir + " is a file, not a directory");
        }
        Path existing = nearestExisting(dir);
        if (existing != null && !Files.isDirectory(existing)) {
            throw new UserError(option + " " + dir + ": " + existing + " is a file, not a directory");
        }
        if (existing != null && !Files.isWritable(existing)) {
            throw new UserError(option + " " + dir + ": cannot write into " + existing + " (permission denied)");
        }
    }

    /**
     * {@code dir} can take a command's set of outputs whole: {@link #directory} and, when it exists, empty, so no
     * file of the user's is replaced and no earlier run's file is left beside the new ones.
     */
    static void emptyDirectory(String option, Path dir) {
        directory(option, dir);
        if (Files.isDirectory(dir)) {
            try (Stream<Path> in = Files.list(dir)) {
                if (in.findAny().isPresent()) {
                    throw new UserError(option + " " + dir + " is not empty; name a new or empty directory");
                }
            } catch (IOException e) {
                throw new UserError(option + " " + dir + ": " + describe(e));
            }
        }
    }

    /** {@code file} can be written: not a directory, and its directory exists and is writable. */
    static void file(String option, Path file) {
        if (Files.isDirectory(file)) {
            throw new UserError(option + " " + file + " is a directory (expected a file name)");
        }
        Path parent = file.toAbsolutePath().getParent();
        if (parent != null && !Files.isDirectory(parent)) {
            throw new UserError(option + " " + file + ": no directory " + parent);
        }
        if (parent != null && !Files.isWritable(parent)) {
            throw new UserError(option + " " + file + ": cannot write into " + parent + " (permission denied)");
        }
        if (Files.exists(file) && !Files.isWritable(file)) {
            throw new UserError(option + " " + file + ": the file is not writable");
        }
    }

    private static Path nearestExisting(Path p) {
        Path at = p.toAbsolutePath();
        while (at != null && !Files.exists(at)) {
            at = at.getParent();
        }
        return at;
    }

    /** What went wrong with a file, in words: the JDK's exceptions name the path and little else. */
    static String describe(IOException e) {
        String what;
        if (e instanceof NoSuchFileException) {
            what = "no such file or directory";
        } else if (e instanceof AccessDeniedException) {
            what = "permission denied";
        } else if (e instanceof FileAlreadyExistsException) {
            what = "already exists";
        } else if (e instanceof NotDirectoryException) {
            what = "not a directory";
        } else if (e instanceof FileSystemException f && f.getReason() != null) {
            what = f.getReason();
        } else {
            return e.getMessage() == null ? e.getClass().getSimpleName() : e.getMessage();
        }
        String file = e instanceof FileSystemException f ? f.getFile() : null;
        return file == null ? what : file + ": " + what;
    }
}
