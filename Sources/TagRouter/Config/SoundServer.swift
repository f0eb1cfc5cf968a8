import Glibc
import TagCore

/// Whether a player's sound server answers where the daemon runs: `pw-play`
/// needs a PipeWire session and `paplay` a PulseAudio one (a system service
/// has none unless given one); `aplay` talks to ALSA and needs no server.
struct SoundServer {
    let player: FeedbackSound.Player
    let environment: [String: String]

    /// True when the server's socket is named in the environment or lies in `XDG_RUNTIME_DIR`.
    var isReachable: Bool {
        switch player {
        case .aplay: return true
        case .pwPlay: return environment["PIPEWIRE_REMOTE"] != nil || runtimeSocketExists("pipewire-0")
        case .paplay: return environment["PULSE_SERVER"] != nil || runtimeSocketExists("pulse/native")
        }
    }

    private func runtimeSocketExists(_ name: String) -> Bool {
        guard let runtime = environment["XDG_RUNTIME_DIR"], !runtime.isEmpty else { return false }
        var info = stat()
        return stat(runtime + "/" + name, &info) == 0 && info.st_mode & S_IFMT == S_IFSOCK
    }
}
