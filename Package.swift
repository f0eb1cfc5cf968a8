// swift-tools-version:6.0
// tagrouter: NFC tag taps → actions. See README.md for the layout of the package.
import PackageDescription

/// C libraries from Debian, each wrapped once and imported by exactly one Swift module.
let systemLibraries: [Target] = [
    .systemLibrary(name: "CNFC", pkgConfig: "libnfc", providers: [.apt(["libnfc-dev"])]),
    .systemLibrary(name: "CMosquitto", pkgConfig: "libmosquitto", providers: [.apt(["libmosquitto-dev"])]),
    // libpcsclite's .pc adds -pthread, which SwiftPM refuses with a warning: the shim includes <PCSC/…> instead.
    .systemLibrary(name: "CPCSC", providers: [.apt(["libpcsclite-dev"])]),
    .systemLibrary(name: "CYAML", pkgConfig: "yaml-0.1", providers: [.apt(["libyaml-dev"])]),
    .systemLibrary(name: "CCrypto", pkgConfig: "libcrypto", providers: [.apt(["libssl-dev"])]),
    // libcurl is loaded with dlopen only when a webhook action is configured (WebhookPlugin/HTTP/Curl.swift):
    // the module gives its headers, and nothing links it.
    .systemLibrary(name: "CCurl", providers: [.apt(["libcurl4-openssl-dev"])]),
]

/// The NDEF codec: pure Swift, no C, no Foundation networking.
let ndef: [Target] = [
    .target(name: "NDEF"),
    .testTarget(name: "NDEFTests", dependencies: ["NDEF"], resources: [.copy("Vectors")]),
    /// Runs the built `tagrouter decode` / `encode` binary.
    .testTarget(name: "NDEFCLITests", dependencies: ["NDEF", "TestSupport"]),
    .executableTarget(name: "ndef-bench", dependencies: ["NDEF"], path: "Benchmarks/NDEFBench"),
]

/// The vocabulary every layer shares: tag events, JSON values, reader settings, the log.
let core: [Target] = [
    .target(name: "TagCore"),
    .testTarget(name: "TagCoreTests", dependencies: ["TagCore"]),
]

/// Tags: transports, drivers, in-memory models, the PN532 simulator, the libnfc reader loop.
let tags: [Target] = [
    .target(name: "TagKit", dependencies: ["NDEF"]),
    .target(name: "PN532Sim", dependencies: ["TagKit", "NDEF"]),
    .target(name: "TagReader", dependencies: ["TagKit", "NDEF", "TagCore", "CNFC", "CPCSC"]),
    .testTarget(name: "TagKitTests", dependencies: ["TagKit", "NDEF"]),
    .testTarget(name: "PN532SimTests", dependencies: ["PN532Sim", "TagKit", "NDEF", "TestSupport"]),
    .testTarget(name: "TagReaderTests", dependencies: ["TagReader", "PN532Sim", "TagKit", "NDEF", "TagCore", "TestSupport"]),
    .executableTarget(name: "reader-bench", dependencies: ["PN532Sim", "TagKit", "NDEF", "TestSupport"], path: "Benchmarks/ReaderBench"),
]

/// Routing: config, matching, templates, queues, delivery, the plugin protocol.
let routing: [Target] = [
    .target(name: "TagRouter", dependencies: ["TagCore", "CYAML"]),
    .testTarget(name: "TagRouterTests", dependencies: ["TagRouter", "TagCore"]),
    .executableTarget(name: "router-bench", dependencies: ["TagRouter", "TagCore"], path: "Benchmarks/RouterBench"),
    .testTarget(
        name: "RouterEndToEndTests",
        dependencies: ["TagCore", "TagRouter", "MQTTPlugin", "ShellPlugin", "OpenURLPlugin", "WebhookPlugin", "ExecPlugin", "TestSupport"]),
]

/// The action plugins, one target each, all on TagRouter's `ActionPlugin` protocol.
let plugins: [Target] = [
    .target(name: "MQTTPlugin", dependencies: ["TagRouter", "TagCore", "CMosquitto"], path: "Plugins/MQTTPlugin"),
    .target(name: "ChildProcess"),
    .target(name: "ShellPlugin", dependencies: ["TagRouter", "TagCore", "ChildProcess"], path: "Plugins/ShellPlugin"),
    .target(name: "OpenURLPlugin", dependencies: ["TagRouter", "TagCore", "ChildProcess"], path: "Plugins/OpenURLPlugin"),
    .target(name: "WebhookPlugin", dependencies: ["TagRouter", "TagCore", "CCurl", "CCrypto"], path: "Plugins/WebhookPlugin"),
    .target(name: "ExecPlugin", dependencies: ["TagRouter", "TagCore", "ChildProcess"], path: "Plugins/ExecPlugin"),
    .testTarget(name: "ChildProcessTests", dependencies: ["ChildProcess"]),
    .testTarget(
        name: "ActionPluginTests",
        dependencies: [
            "ShellPlugin", "OpenURLPlugin", "WebhookPlugin", "ExecPlugin", "ChildProcess", "TagRouter", "TagCore",
            "PN532Sim", "TagReader", "TagKit", "NDEF", "MQTTPlugin",
        ]),
    .executableTarget(name: "mqtt-bench", dependencies: ["MQTTPlugin", "TagCore"], path: "Benchmarks/MQTTBench"),
    .testTarget(name: "MQTTPluginTests", dependencies: ["MQTTPlugin", "TagRouter", "TagCore", "ChildProcess", "TestSupport", "mqtt-bench"]),
]

/// The command-line tool and daemon.
let executable: [Target] = [
    .executableTarget(
        name: "TagRouterCLI",
        dependencies: [
            "NDEF", "TagCore", "TagKit", "PN532Sim", "TagReader", "TagRouter",
            "MQTTPlugin", "ShellPlugin", "OpenURLPlugin", "WebhookPlugin", "ExecPlugin",
        ],
        resources: [.embedInCode("Resources/tagrouter.yaml")]
    ),
    /// What tests that run real processes share: a mosquitto broker, an independent subscriber, the built binaries.
    .target(name: "TestSupport", dependencies: ["ChildProcess"], path: "Tests/TestSupport"),
    /// The built `tagrouter` as real processes: `simulate`, `run`, a real broker and subscriber.
    .testTarget(name: "EndToEndTests", dependencies: ["TestSupport", "TagCore"]),
    .executableTarget(name: "e2e-bench", dependencies: ["TestSupport"], path: "Benchmarks/EndToEndBench"),
]

let package = Package(
    name: "tagrouter",
    products: [
        .executable(name: "tagrouter", targets: ["TagRouterCLI"]),
        .library(name: "NDEF", targets: ["NDEF"]),
    ],
    targets: systemLibraries + ndef + core + tags + routing + plugins + executable,
    swiftLanguageModes: [.v6]
)
