// swift-tools-version:6.0
// tagrouter: NFC tag taps → actions. See README.md for the layout of the package.
import PackageDescription

/// C libraries from Debian, each wrapped once and imported by exactly one Swift module.
let systemLibraries: [Target] = [
    .systemLibrary(name: "CNFC", pkgConfig: "libnfc", providers: [.apt(["libnfc-dev"])]),
    .systemLibrary(name: "CMosquitto", pkgConfig: "libmosquitto", providers: [.apt(["libmosquitto-dev"])]),
    // libpcsclite's .pc adds -pthread, which SwiftPM refuses with a warning; its headers include each other as
    // <pcsclite.h>, so ReaderPCSC (the one importer, with `internal import`) adds their folder itself.
    .systemLibrary(name: "CPCSC", providers: [.apt(["libpcsclite-dev"])]),
    .systemLibrary(name: "CYAML", pkgConfig: "yaml-0.1", providers: [.apt(["libyaml-dev"])]),
    .systemLibrary(name: "CCrypto", pkgConfig: "libcrypto", providers: [.apt(["libssl-dev"])]),
    // Loaded with dlopen only when needed (SystemKit's SharedLibrary), so these modules give headers and link nothing:
    // libsystemd under systemd (Systemd/LibSystemd.swift), libcurl for a webhook action (WebhookPlugin/HTTP/Curl.swift),
    // libmicrohttpd for a metrics listener (DaemonHTTP/Server/MicroHTTPD.swift).
    .systemLibrary(name: "CSystemd", providers: [.apt(["libsystemd-dev"])]),
    .systemLibrary(name: "CCurl", providers: [.apt(["libcurl4-openssl-dev"])]),
    .systemLibrary(name: "CMicroHTTPD", providers: [.apt(["libmicrohttpd-dev"])]),
]

/// Ordered JSON at the bottom of the graph: the value type, a byte-level writer, a bounded parser. Pure Swift.
let json: [Target] = [
    .target(name: "OrderedJSON"),
    .testTarget(name: "OrderedJSONTests", dependencies: ["OrderedJSON"]),
]

/// The NDEF codec: pure Swift, no C, no Foundation networking; records become `JSONValue`s.
let ndef: [Target] = [
    .target(name: "NDEF", dependencies: ["OrderedJSON"]),
    .testTarget(name: "NDEFTests", dependencies: ["NDEF", "OrderedJSON"], resources: [.copy("Vectors")]),
    /// Runs the built `tagrouter decode` / `encode` binary.
    .testTarget(name: "NDEFCLITests", dependencies: ["NDEF", "TestSupport"]),
    .executableTarget(name: "ndef-bench", dependencies: ["NDEF", "BenchSupport"], path: "Benchmarks/NDEFBench"),
    /// What the benchmarks share: the in-process timing loop; progress and milliseconds for the process ones.
    .target(name: "BenchSupport", path: "Benchmarks/BenchSupport"),
]

/// The process and the system below everything else: the log, dedicated threads, signals, dlopen, private files, stderr,
/// string helpers (SystemKit); services and their group, bounded queues, latches, the watchdog, the retry backoff (Lifecycle).
let runtime: [Target] = [
    .target(name: "SystemKit", dependencies: ["OrderedJSON"]),
    .testTarget(name: "SystemKitTests", dependencies: ["SystemKit", "OrderedJSON"]),
    .target(name: "Lifecycle", dependencies: ["SystemKit", "OrderedJSON"]),
    .testTarget(name: "LifecycleTests", dependencies: ["Lifecycle", "SystemKit"]),
]

/// The vocabulary every layer shares, values only (TagCore): tag events and UIDs, reader settings, feedback, tag jobs.
/// What runs between the layers, on that vocabulary (TagRuntime): the event buffer, the feedback board, a tag job
/// awaited, a password read from its file.
let core: [Target] = [
    .target(name: "TagCore", dependencies: ["OrderedJSON"]),
    .testTarget(name: "TagCoreTests", dependencies: ["TagCore", "OrderedJSON"]),
    .target(name: "TagRuntime", dependencies: ["TagCore", "OrderedJSON", "SystemKit", "Lifecycle"]),
    .testTarget(name: "TagRuntimeTests", dependencies: ["TagRuntime", "TagCore"]),
]

/// Life under systemd: sd_notify (ready, status, watchdog) and native journal entries.
let systemd: [Target] = [
    .target(name: "Systemd", dependencies: ["CSystemd", "SystemKit", "OrderedJSON"]),
    /// Calls the Systemd module as the daemon will, so tests can give it a NOTIFY_SOCKET of their own.
    .executableTarget(name: "systemd-probe", dependencies: ["Systemd"], path: "Tests/SystemdProbe"),
    .testTarget(name: "SystemdTests", dependencies: ["Systemd", "TestSupport", "systemd-probe"]),
]

/// Tags: transports, drivers, in-memory models, the PN532 simulator, the reader seam (scan model, supervision, the
/// reader-driver contract and registry type).
let tags: [Target] = [
    .target(name: "TagKit", dependencies: ["NDEF"]),
    .target(name: "PN532Sim", dependencies: ["TagKit", "NDEF", "SystemKit", "SecureTags", "OrderedJSON"]),
    .target(name: "TagReader", dependencies: ["TagKit", "NDEF", "OrderedJSON", "SystemKit", "Lifecycle", "TagCore", "TagRuntime", "SecureTags", "TagRouter"]),
    .testTarget(name: "TagKitTests", dependencies: ["TagKit", "NDEF"]),
    .testTarget(name: "PN532SimTests", dependencies: ["PN532Sim", "TagKit", "NDEF", "SecureTags", "TagCore", "OrderedJSON", "TestSupport", "Harness"]),
    .testTarget(
        name: "TagReaderTests",
        dependencies: [
            "TagReader", "ReaderLibNFC", "ReaderPCSC", "ReaderKeyboard", "PN532Sim", "TagKit", "NDEF", "OrderedJSON", "SystemKit", "Lifecycle", "TagCore",
            "TagRuntime", "SecureTags", "TagRouter", "TagRouterDaemon", "TestSupport", "Harness",
        ]),
    .executableTarget(name: "reader-bench", dependencies: ["PN532Sim", "TagKit", "NDEF", "Harness", "BenchSupport"], path: "Benchmarks/ReaderBench"),
]

/// The reader drivers, one target each under Readers/ as the action plugins are under Plugins/: each is the one module
/// that imports its C library, and registers in `BuiltinPlugins.readers` (docs/development/reader-kinds.md).
let readerDrivers: [Target] = [
    .target(
        name: "ReaderLibNFC", dependencies: ["TagReader", "TagKit", "OrderedJSON", "SystemKit", "Lifecycle", "TagCore", "TagRouter", "CNFC"],
        path: "Readers/LibNFC"),
    // libpcsclite's headers include each other as <pcsclite.h>: their folder is added here, for the one importer.
    .target(
        name: "ReaderPCSC", dependencies: ["TagReader", "TagKit", "NDEF", "OrderedJSON", "SystemKit", "Lifecycle", "TagCore", "TagRouter", "CPCSC"],
        path: "Readers/PCSC", swiftSettings: [.unsafeFlags(["-Xcc", "-I/usr/include/PCSC"])]),
    // Linux input devices through Glibc (open, ioctl EVIOCGRAB, poll): no library of its own.
    .target(
        name: "ReaderKeyboard", dependencies: ["TagReader", "TagKit", "OrderedJSON", "SystemKit", "Lifecycle", "TagCore", "TagRouter"],
        path: "Readers/Keyboard"),
]

/// Tags that prove themselves: AES, CMAC and HMAC from libcrypto (TagCrypto, the one importer of CCrypto),
/// NTAG 424 DNA SUN messages checked against keys and a counter kept on disk (SecureTags).
let secureTags: [Target] = [
    .target(name: "TagCrypto", dependencies: ["CCrypto"]),
    .target(name: "SecureTags", dependencies: ["TagCrypto", "TagCore", "SystemKit", "OrderedJSON"]),
    .testTarget(name: "SecureTagsTests", dependencies: ["SecureTags", "TagCrypto", "TagCore", "OrderedJSON"]),
]

/// Routing: config, matching, templates, queues, delivery, the plugin protocol.
let routing: [Target] = [
    .target(name: "TagRouter", dependencies: ["OrderedJSON", "SystemKit", "Lifecycle", "TagCore", "TagRuntime", "SecureTags", "CYAML"]),
    .testTarget(name: "TagRouterTests", dependencies: ["TagRouter", "OrderedJSON", "SystemKit", "Lifecycle", "TagCore", "TagRuntime", "SecureTags"]),
    .executableTarget(name: "router-bench", dependencies: ["TagRouter", "OrderedJSON", "SystemKit", "TagCore", "TagRuntime", "BenchSupport"], path: "Benchmarks/RouterBench"),
    .testTarget(
        name: "RouterEndToEndTests",
        dependencies: ["OrderedJSON", "TagRouter", "TagRouterDaemon", "DaemonTesting", "DaemonControl", "TestSupport", "Harness"]),
]

/// The running daemon seen and steered from outside: the control socket, its server and client; metrics and the live page.
let control: [Target] = [
    .target(name: "DaemonControl", dependencies: ["TagRouter", "OrderedJSON", "SystemKit", "Lifecycle", "TagCore", "NDEF"]),
    .testTarget(name: "DaemonControlTests", dependencies: ["DaemonControl", "TagRouter", "OrderedJSON", "TagCore"]),
    /// Prometheus metrics and the live page on a local HTTP listener (libmicrohttpd).
    .target(name: "DaemonHTTP", dependencies: ["TagRouter", "OrderedJSON", "SystemKit", "Lifecycle", "TagCore", "CMicroHTTPD"], resources: [.embedInCode("Resources/live.html")]),
    .testTarget(name: "DaemonHTTPTests", dependencies: ["DaemonHTTP", "TagRouter"]),
]

/// The action plugins, one target each, all on TagRouter's `ActionPlugin` protocol.
let plugins: [Target] = [
    .target(name: "MQTTPlugin", dependencies: ["TagRouter", "OrderedJSON", "SystemKit", "Lifecycle", "TagCore", "TagRuntime", "NDEF", "CMosquitto", "TagCrypto"], path: "Plugins/MQTTPlugin"),
    .target(name: "ChildProcess", dependencies: ["SystemKit"]),
    .target(name: "ShellPlugin", dependencies: ["TagRouter", "OrderedJSON", "SystemKit", "TagCore", "ChildProcess"], path: "Plugins/ShellPlugin"),
    .target(name: "OpenURLPlugin", dependencies: ["TagRouter", "OrderedJSON", "SystemKit", "ChildProcess"], path: "Plugins/OpenURLPlugin"),
    .target(name: "WebhookPlugin", dependencies: ["TagRouter", "OrderedJSON", "SystemKit", "CCurl", "TagCrypto"], path: "Plugins/WebhookPlugin"),
    .target(name: "ExecPlugin", dependencies: ["TagRouter", "OrderedJSON", "SystemKit", "Lifecycle", "TagCore", "ChildProcess"], path: "Plugins/ExecPlugin"),
    .testTarget(name: "ChildProcessTests", dependencies: ["ChildProcess", "TestSupport", "Harness"]),
    .testTarget(
        name: "ActionPluginTests",
        dependencies: [
            "ShellPlugin", "OpenURLPlugin", "WebhookPlugin", "ExecPlugin", "ChildProcess", "TagRouter", "OrderedJSON", "Lifecycle",
            "TagCore", "PN532Sim", "TagReader", "TagKit", "NDEF", "MQTTPlugin", "TagRouterDaemon", "TestSupport",
        ]),
    .executableTarget(name: "mqtt-bench", dependencies: ["MQTTPlugin", "Lifecycle"], path: "Benchmarks/MQTTBench"),
    .testTarget(name: "MQTTPluginTests", dependencies: ["MQTTPlugin", "TagRouter", "TagRouterDaemon", "OrderedJSON", "Lifecycle", "TagCore", "TagRuntime", "SystemKit", "ChildProcess", "TestSupport", "Harness", "mqtt-bench"]),
]

/// How the release `tagrouter` is linked, for a smaller resident set (docs/development/memory.md): lld places the functions the
/// daemon runs first in `.text` (scripts/release/tagrouter.order, written by scripts/release/link-order.sh), so they
/// share a few pages instead of pulling in code around them page by page; relative relocations are packed (DT_RELR)
/// instead of a megabyte of `.rela.dyn` read at every start. A symbol the list names that no longer exists is skipped.
/// `--no-export-dynamic` undoes the `-export-dynamic` of the static Swift runtime's link arguments: nothing looks up the
/// executable's ~6,300 Swift symbols by name, and their 500 kB dynamic symbol table was read at every library symbol lookup.
/// The `-L` folder holds a `libstdc++.so` that names GCC's `libstdc++.a`: the runtime's `-lstdc++` links it statically.
let releaseLinkLayout = [
    "-use-ld=lld",
    "-Xlinker", "--symbol-ordering-file=\(Context.packageDirectory)/scripts/release/tagrouter.order", "-Xlinker", "--no-warn-symbol-ordering",
    "-Xlinker", "-z", "-Xlinker", "pack-relative-relocs",
    "-Xlinker", "--no-export-dynamic",
    "-L\(Context.packageDirectory)/scripts/release/static-cxx",
]

/// The daemon as a library: the plugin registry, the config file and its embedded default, the service group, one
/// serialized reload, the graceful shutdown. `tagrouter run` runs it; tests run it in process (DaemonTesting).
let daemon: [Target] = [
    .target(
        name: "TagRouterDaemon",
        dependencies: [
            "OrderedJSON", "SystemKit", "Lifecycle", "TagCore", "TagRuntime", "TagReader", "ReaderLibNFC", "ReaderPCSC", "ReaderKeyboard", "TagRouter",
            "MQTTPlugin", "ShellPlugin", "OpenURLPlugin", "WebhookPlugin", "ExecPlugin", "DaemonControl", "DaemonHTTP", "ChildProcess", "Systemd",
        ],
        resources: [.embedInCode("Resources/tagrouter.yaml")]),
    /// A daemon in the test process: config text in, events in, reload, stop; what the `log` action wrote and the observer saw.
    .target(name: "DaemonTesting", dependencies: ["TagRouterDaemon", "TagRouter", "TagCore", "OrderedJSON", "SystemKit", "DaemonControl"], path: "Tests/DaemonTesting"),
]

/// The command-line tool: parses arguments, runs the daemon and the other commands, prints.
let executable: [Target] = [
    .executableTarget(
        name: "TagRouterCLI",
        dependencies: [
            "OrderedJSON", "SystemKit", "Lifecycle", "NDEF", "TagCore", "TagRuntime", "TagKit", "PN532Sim", "TagReader", "TagRouter", "TagRouterDaemon",
            "MQTTPlugin", "DaemonControl", "DaemonHTTP", "ChildProcess", "Systemd",
        ],
        resources: [.embedInCode("Resources/demo.yaml")],
        linkerSettings: [.unsafeFlags(releaseLinkLayout, .when(configuration: .release))]
    ),
    /// The command line's declarations walked in process: option tables, generated usage, help, man page and completion.
    .testTarget(name: "TagRouterCLITests", dependencies: ["TagRouterCLI", "TagRouter", "TagCore", "TestSupport"]),
    /// Real processes for tests and benchmarks alike: a running tool with its timed output lines, a mosquitto broker,
    /// an independent subscriber, a connection to the simulator's control socket.
    .target(name: "Harness", dependencies: ["ChildProcess"], path: "Benchmarks/Harness"),
    /// What only the tests share, on top of the Harness: the built binaries, tools run to their end, pcscd, HTTP and datagram peers.
    .target(name: "TestSupport", dependencies: ["ChildProcess", "OrderedJSON", "TagCore", "Harness"], path: "Tests/TestSupport"),
    /// The public event format: docs/event.schema.json against every event kind, and the events the docs show.
    .testTarget(name: "EventFormatTests", dependencies: ["OrderedJSON", "TagCore", "NDEF", "TagKit", "PN532Sim", "TestSupport", "Harness"],
                exclude: ["validate-events.py"]),
    /// The built `tagrouter` as real processes: `simulate`, `run`, a real broker and subscriber.
    .testTarget(name: "EndToEndTests", dependencies: ["TestSupport", "Harness", "OrderedJSON", "SystemKit", "TagCore"], exclude: ["scrape-metrics.py", "drive-browser.py"]),
    .executableTarget(name: "e2e-bench", dependencies: ["Harness", "BenchSupport"], path: "Benchmarks/EndToEndBench"),
    /// `make deb` and `make install`: the package from the release binary, lintian, the systemd units.
    .testTarget(name: "PackagingTests", dependencies: ["TestSupport", "Harness", "TagCore"]),
]

let package = Package(
    name: "tagrouter",
    products: [
        .executable(name: "tagrouter", targets: ["TagRouterCLI"]),
        .library(name: "NDEF", targets: ["NDEF"]),
    ],
    targets: systemLibraries + json + ndef + runtime + core + systemd + tags + readerDrivers + secureTags + routing + control + plugins + daemon + executable,
    swiftLanguageModes: [.v6]
)
