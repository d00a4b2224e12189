package mongobench.testserver;

import java.io.IOException;
import java.io.InputStream;
import java.net.InetSocketAddress;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.jar.JarFile;

import de.bwaldvogel.mongo.MongoServer;
import de.bwaldvogel.mongo.MongoVersion;
import de.bwaldvogel.mongo.backend.memory.MemoryBackend;

/**
 * Launches mongo-java-server (in-memory backend) on 127.0.0.1 for mongo-bench's tests.
 *
 * Usage: java -jar mongo-bench-test-server.jar [port] [--ignore-stdin]
 *   port            TCP port on 127.0.0.1; 0 (the default) picks a free one.
 *   --ignore-stdin  keep running when stdin closes (for running it by hand with stdin at /dev/null).
 *
 * Prints exactly one line to stdout once it accepts connections:
 *   LISTENING <port> mongo-java-server/<version> reports=<version>/wire<n>
 * and exits when stdin reaches end-of-file (its parent died or closed the pipe) or on SIGTERM, so a
 * test run can never leave it behind.
 */
public final class Main {

    /** What the server claims to be: the Node driver 7 refuses servers below wire version 8 or so. */
    static final MongoVersion REPORTED_VERSION = new MongoVersion() {
        @Override
        public List<Integer> getVersionArray() {
            return List.of(6, 0, 0);
        }

        @Override
        public int getWireVersion() {
            return 17;
        }
    };

    private Main() {
    }

    public static void main(String[] args) throws InterruptedException {
        // Before any logger exists: connections are logged at INFO, which would only be noise.
        System.setProperty("org.slf4j.simpleLogger.defaultLogLevel", "warn");
        System.setProperty("org.slf4j.simpleLogger.logFile", "System.err");
        // mongo-java-server 1.47.0's $sample (backend/aggregation/stage/SampleStage) sorts the documents
        // with a comparator that draws a new random key at every comparison; Java's TimSort then throws
        // "Comparison method violates its general contract!" now and then on 32 documents or more, an
        // error MongoDB's $sample never gives (src/mongo/db/pipeline/document_source_sample.cpp draws one
        // random key per document). The legacy merge sort does not check the contract: the sample stays
        // random and the error goes. It sorts exactly as TimSort does whenever a comparator is consistent.
        System.setProperty("java.util.Arrays.useLegacyMergeSort", "true");

        int port = 0;
        boolean watchStdin = true;
        for (String arg : args) {
            if (arg.equals("--ignore-stdin")) {
                watchStdin = false;
            } else {
                port = parsePort(arg);
            }
        }

        MemoryBackend backend = new MemoryBackend();
        backend.version(REPORTED_VERSION);
        MongoServer server = new MongoServer(backend);
        try {
            server.bind("127.0.0.1", port);
        } catch (Exception e) { // Netty rethrows java.net.BindException undeclared, so catch them all
            System.err.println("mongo-bench test server: cannot listen on 127.0.0.1:" + port + ": " + e);
            System.exit(1);
        }
        Runtime.getRuntime().addShutdownHook(new Thread(server::shutdownNow, "shutdown"));

        InetSocketAddress address = server.getLocalAddress();
        System.out.println("LISTENING " + address.getPort() + " mongo-java-server/" + libraryVersion()
                + " reports=" + REPORTED_VERSION.toVersionString() + "/wire" + REPORTED_VERSION.getWireVersion());
        System.out.flush();

        if (watchStdin) {
            Thread watcher = new Thread(Main::exitAtEndOfStdin, "stdin-watch");
            watcher.setDaemon(true);
            watcher.start();
        }
        new CountDownLatch(1).await(); // Netty serves on its own threads; exit comes from stdin or a signal.
    }

    private static int parsePort(String arg) {
        try {
            int port = Integer.parseInt(arg);
            if (port >= 0 && port <= 65535) {
                return port;
            }
        } catch (NumberFormatException ignored) {
            // reported below
        }
        System.err.println("mongo-bench test server: port must be an integer 0..65535 (0 = any free port), got '" + arg + "'");
        System.exit(2);
        return -1;
    }

    private static void exitAtEndOfStdin() {
        InputStream in = System.in;
        byte[] buffer = new byte[256];
        try {
            while (in.read(buffer) >= 0) {
                // Input is ignored; only its end matters.
            }
        } catch (IOException ignored) {
            // A broken pipe means the parent is gone too.
        }
        System.exit(0);
    }

    /** The mongo-java-server version, from this jar's manifest (written by the pom). */
    private static String libraryVersion() {
        try {
            Path self = Path.of(Main.class.getProtectionDomain().getCodeSource().getLocation().toURI());
            try (JarFile jar = new JarFile(self.toFile())) {
                String version = jar.getManifest().getMainAttributes().getValue("Mongo-Java-Server-Version");
                return version != null ? version : "unknown";
            }
        } catch (Exception e) {
            return "unknown"; // e.g. run from target/classes rather than the jar
        }
    }
}
