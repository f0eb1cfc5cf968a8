/// The host's sound for a reader's moments (`readers[].feedback.sound`): one
/// audio file per moment, played through a player from Debian (`pw-play`,
/// `paplay` or `aplay`). The router's spec declares the keys and checks the
/// files at load; the daemon plays them, one at a time per reader.
public struct FeedbackSound: Sendable, Equatable {
    /// The program that plays a file.
    public enum Player: String, Sendable, Equatable, CaseIterable {
        /// PipeWire's player (Debian package `pipewire-bin`); plays into the user's PipeWire session.
        case pwPlay = "pw-play"
        /// PulseAudio's player (`pulseaudio-utils`); also plays into PipeWire through `pipewire-pulse`.
        case paplay
        /// ALSA's player (`alsa-utils`); needs no sound server, the daemon's user in the `audio` group.
        case aplay

        /// The Debian package that installs it.
        public var package: String {
            switch self {
            case .pwPlay: return "pipewire-bin"
            case .paplay: return "pulseaudio-utils"
            case .aplay: return "alsa-utils"
            }
        }

        /// The arguments after the program's name that play `file` on `device` (the player's default when nil).
        public func arguments(file: String, device: String?) -> [String] {
            switch self {
            case .pwPlay: return (device.map { ["--target", $0] } ?? []) + ["--", file]
            case .paplay: return (device.map { ["--device=\($0)"] } ?? []) + ["--", file]
            case .aplay: return ["-q"] + (device.map { ["-D", $0] } ?? []) + ["--", file]
            }
        }
    }

    public var player: Player
    /// The player's executable, found at load.
    public var program: String
    /// Where the player plays (its `--target`, `--device` or `-D`); nil: its default.
    public var device: String?
    /// A sound still playing after this long is stopped (its process group is terminated).
    public var timeout: Duration
    /// Per moment, the absolute path of the file to play; a moment without one plays nothing.
    public var files: [ReaderFeedback.Moment: String]

    public init(player: Player, program: String, device: String?, timeout: Duration, files: [ReaderFeedback.Moment: String]) {
        self.player = player
        self.program = program
        self.device = device
        self.timeout = timeout
        self.files = files
    }

    /// The whole command line that plays `moment`'s file; nil when the moment has none.
    public func command(for moment: ReaderFeedback.Moment) -> [String]? {
        files[moment].map { [program] + player.arguments(file: $0, device: device) }
    }
}
