package io.github.rocketmqrebalance.internal;

import java.io.File;
import java.io.IOException;
import java.nio.file.AtomicMoveNotSupportedException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.attribute.PosixFilePermissions;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.Arrays;

/**
 * Where the jar's native library is written to be loaded: one file per content, named by its
 * SHA-256, in a folder of the user's own, reused by every JVM that loads the same library. A JVM
 * killed with {@code kill -9} never runs its exit hooks, so a copy per JVM (deleted on exit) piled
 * up one file per crash in a crash-looping pod; a copy per content does not. Internal.
 */
public final class ExtractedLibrary {
    private ExtractedLibrary() {
    }

    /**
     * The file holding {@code content}, named {@code <prefix>-<first 16 hex digits of its
     * SHA-256><suffix>} in {@code dir} (made owner-only if it is new): the existing one when its
     * bytes are exactly {@code content}, else written anew beside it and moved into place in one
     * step, so a JVM loading it concurrently never sees half a file.
     */
    public static File extracted(byte[] content, File dir, String prefix, String suffix) throws IOException {
        Path folder = dir.toPath();
        if (!Files.isDirectory(folder)) {
            Files.createDirectories(folder);
            try {
                Files.setPosixFilePermissions(folder, PosixFilePermissions.fromString("rwx------"));
            } catch (UnsupportedOperationException notPosix) {
                // A file system without POSIX permissions: the folder keeps the default ones.
            }
        }
        Path target = folder.resolve(prefix + "-" + hex(sha256(content)).substring(0, 16) + suffix);
        if (Files.isRegularFile(target) && Files.size(target) == content.length && Arrays.equals(Files.readAllBytes(target), content)) {
            return target.toFile();
        }
        Path partial = Files.createTempFile(folder, prefix + "-", ".partial");
        try {
            Files.write(partial, content);
            try {
                Files.move(partial, target, StandardCopyOption.ATOMIC_MOVE, StandardCopyOption.REPLACE_EXISTING);
            } catch (AtomicMoveNotSupportedException e) {
                Files.move(partial, target, StandardCopyOption.REPLACE_EXISTING);
            }
        } finally {
            Files.deleteIfExists(partial);
        }
        return target.toFile();
    }

    /** {@code java.io.tmpdir}/rocketmq-rebalance-{@code user.name}: one folder per user. */
    public static File defaultFolder() {
        String user = System.getProperty("user.name", "user").replaceAll("[^A-Za-z0-9._-]", "_");
        return new File(System.getProperty("java.io.tmpdir"), "rocketmq-rebalance-" + user);
    }

    private static byte[] sha256(byte[] content) {
        try {
            return MessageDigest.getInstance("SHA-256").digest(content);
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException("every JVM has SHA-256", e);
        }
    }

    private static String hex(byte[] bytes) {
        StringBuilder b = new StringBuilder();
        for (byte x : bytes) {
            b.append(String.format("%02x", x & 0xff));
        }
        return b.toString();
    }
}
