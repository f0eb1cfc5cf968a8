import Foundation
import TagCore
import Testing

@testable import TagRouter

/// `readers[].feedback.sound` at load: the files and the player are checked
/// where the config names them. (What a libnfc reader cannot show is its
/// driver's check: TagReaderTests' `ReaderKindConfigTests`.)
@Suite struct FeedbackSoundConfigTests {
    /// A scratch folder with a WAV file, a folder `bin` holding stand-ins for the players named, and the environment
    /// (PATH on `bin` only) the config is loaded against.
    struct Scratch {
        let directory = NSTemporaryDirectory() + "sound-config-" + UUID().uuidString
        var wav: String { directory + "/ok.wav" }
        var environment: [String: String] { ["HOME": "/tmp", "PATH": directory + "/bin"] }

        init(players: [String] = ["aplay"]) throws {
            try FileManager.default.createDirectory(atPath: directory + "/bin", withIntermediateDirectories: true)
            // A minimal RIFF/WAVE header, then a few silent samples.
            let header: [UInt8] = Array("RIFF".utf8) + [40, 0, 0, 0] + Array("WAVEfmt ".utf8)
            try Data(header + [UInt8](repeating: 0, count: 40)).write(to: URL(fileURLWithPath: wav))
            for player in players {
                let path = directory + "/bin/" + player
                try "#!/bin/sh\nexit 0\n".write(toFile: path, atomically: true, encoding: .utf8)
                chmod(path, 0o755)
            }
        }

        func remove() { try? FileManager.default.removeItem(atPath: directory) }

        /// The config with one reader whose `feedback:` is `feedback` (indented under it).
        func config(_ feedback: String, device: String = "pn532_uart:/dev/ttyUSB0") -> String {
            """
            readers:
              - name: door
                device: "\(device)"
                feedback:
            \(feedback.split(separator: "\n").map { "      " + $0 }.joined(separator: "\n"))
            routes:
              - actions: [log]
            """
        }

        func load(_ text: String) throws(ConfigErrors) -> RouterConfig {
            try TagRouterTests.load(text, environment: environment, directory: directory)
        }

        func problems(_ text: String) -> [String] {
            TagRouterTests.problems(text, environment: environment, directory: directory)
        }
    }

    @Test func aLibnfcReaderGetsItsFilesAndThePlayerFoundOnPath() throws {
        let scratch = try Scratch()
        defer { scratch.remove() }
        let config = try scratch.load(scratch.config("""
            sound:
              device: "null"
              timeout: 3s
              success: ok.wav
              no_match: \(scratch.wav)
            """))
        let sound = try #require(config.readers[0].feedback.sound)
        #expect(sound.player == .aplay)
        #expect(sound.program == scratch.directory + "/bin/aplay")
        #expect(sound.timeout == .seconds(3))
        #expect(sound.files == [.success: scratch.directory + "/ok.wav", .noMatch: scratch.wav])
        #expect(sound.command(for: .success) == [scratch.directory + "/bin/aplay", "-q", "-D", "null", "--", scratch.directory + "/ok.wav"])
        #expect(sound.command(for: .failure) == nil)
        #expect(config.warnings.isEmpty)
    }

    @Test func aMissingFileIsRefusedWhereItIsNamed() throws {
        let scratch = try Scratch()
        defer { scratch.remove() }
        #expect(scratch.problems(scratch.config("""
            sound:
              success: ok.wav
              failure: gone.wav
            """)) == [
                "t.yaml:7:18: readers[0].feedback.sound.failure: cannot read '\(scratch.directory)/gone.wav': there is no such file; "
                    + "name an existing sound file (a relative path starts at the config file's folder)"
            ])
    }

    @Test func aFolderAnEmptyFileAndAnOversizedOneAreRefused() throws {
        let scratch = try Scratch()
        defer { scratch.remove() }
        #expect(FileManager.default.createFile(atPath: scratch.directory + "/empty.wav", contents: Data()))
        let huge = scratch.directory + "/huge.wav"
        #expect(FileManager.default.createFile(atPath: huge, contents: Data()))
        #expect(truncate(huge, off_t(FeedbackSound.fileLimit + 1)) == 0)  // sparse: no disk used
        #expect(scratch.problems(scratch.config("""
            sound:
              arrival: bin
              success: empty.wav
              failure: huge.wav
            """)) == [
                "t.yaml:6:18: readers[0].feedback.sound.arrival: '\(scratch.directory)/bin' is not a regular file; name a sound file",
                "t.yaml:7:18: readers[0].feedback.sound.success: '\(scratch.directory)/empty.wav' is empty; name a sound file",
                "t.yaml:8:18: readers[0].feedback.sound.failure: '\(huge)' has \(FeedbackSound.fileLimit + 1) bytes, more than the \(FeedbackSound.fileLimit) a feedback sound may have; use a shorter sound",
            ])
    }

    @Test func aplayIsNotGivenAFileItWouldPlayAsNoise() throws {
        let scratch = try Scratch()
        defer { scratch.remove() }
        try "ID3 not a wave".write(toFile: scratch.directory + "/tune.mp3", atomically: true, encoding: .utf8)
        #expect(scratch.problems(scratch.config("sound: {player: aplay, success: tune.mp3}")) == [
            "t.yaml:5:39: readers[0].feedback.sound.success: '\(scratch.directory)/tune.mp3' is not a WAV, AU or VOC file, which aplay would play as noise; "
                + "convert it (`sox in.ogg out.wav`) or use pw-play/paplay"
        ])
    }

    @Test func aPlayerThatIsNotInstalledIsRefusedWithItsPackage() throws {
        let scratch = try Scratch(players: [])
        defer { scratch.remove() }
        #expect(scratch.problems(scratch.config("sound: {player: pw-play, success: ok.wav}")) == [
            "t.yaml:5:23: readers[0].feedback.sound.player: pw-play is not installed (searched PATH \(scratch.directory)/bin); install Debian's `pipewire-bin` or choose another player"
        ])
        #expect(scratch.problems(scratch.config("sound: {success: ok.wav}")) == [
            "t.yaml:5:14: readers[0].feedback.sound.player: no sound player is installed (searched PATH \(scratch.directory)/bin for pw-play, paplay, aplay); "
                + "install Debian's `alsa-utils` (aplay) or `pipewire-bin` (pw-play)"
        ])
    }

    @Test func autoTakesAplayWhenNoSoundServerIsReachable() throws {
        let scratch = try Scratch(players: ["pw-play", "paplay", "aplay"])
        defer { scratch.remove() }
        let config = try scratch.load(scratch.config("sound: {success: ok.wav}"))
        #expect(config.readers[0].feedback.sound?.player == .aplay)
        let noALSA = try Scratch(players: ["pw-play"])
        defer { noALSA.remove() }
        #expect(try noALSA.load(noALSA.config("sound: {success: ok.wav}")).readers[0].feedback.sound?.player == .pwPlay)
    }

    @Test func aTimeoutOutsideItsBoundsIsRefused() throws {
        let scratch = try Scratch()
        defer { scratch.remove() }
        #expect(scratch.problems(scratch.config("sound: {timeout: 2m, success: ok.wav}")) == [
            "t.yaml:5:24: readers[0].feedback.sound.timeout: expected a duration above 0 and at most 1m, got 120.0 seconds"
        ])
    }
}
