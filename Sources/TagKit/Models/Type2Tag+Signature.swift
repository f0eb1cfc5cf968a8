/// READ_SIG (`3C 00`) of the Type 2 model: the originality signature it was given
/// (a real tag's, copied with its UID, passes the check; another UID's does not),
/// or a NAK when it has none — a chip that does not give one.
extension Type2Tag {
    /// The configured signature, or a NAK.
    func readSignature() throws(TagTransportError) -> [UInt8] {
        guard let signature else { throw Self.nak }
        return signature
    }
}
