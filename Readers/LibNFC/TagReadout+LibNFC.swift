import TagReader

extension TagReadout {
    /// A readout of what anticollision told, when the tag could not be read.
    init(target: NFCTarget, ndefError: String) {
        self.init(info: TagInspector.identity(of: target), ndefError: ndefError)
    }
}
