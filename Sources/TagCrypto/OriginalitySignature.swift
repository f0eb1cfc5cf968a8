import CCrypto

/// NXP's originality signature (READ_SIG on NTAG 21x and MIFARE Ultralight EV1,
/// NXP AN11350): ECDSA on curve secp128r1 over the tag's UID itself (no hash),
/// 32 bytes r ‖ s, checked with libcrypto against the public keys NXP published.
/// A valid signature says an NXP chip was made with this UID; a magic card can
/// replay a copied one with the copied UID.
public enum OriginalitySignature {
    /// NXP's public keys as uncompressed points (`04` ‖ x ‖ y): NTAG 21x (AN11350)
    /// and MIFARE Ultralight EV1 (the key proxmark3's `hf mfu info` lists as "NXP Ultralight Ev1").
    public static let nxpPublicKeys: [[UInt8]] = [
        [
            0x04, 0x49, 0x4E, 0x1A, 0x38, 0x6D, 0x3D, 0x3C, 0xFE, 0x3D, 0xC1, 0x0E, 0x5D, 0xE6, 0x8A, 0x49, 0x9B,
            0x1C, 0x20, 0x2D, 0xB5, 0xB1, 0x32, 0x39, 0x3E, 0x89, 0xED, 0x19, 0xFE, 0x5B, 0xE8, 0xBC, 0x61,
        ],
        [
            0x04, 0x90, 0x93, 0x3B, 0xDC, 0xD6, 0xE9, 0x9B, 0x4E, 0x25, 0x5E, 0x3D, 0xA5, 0x53, 0x89, 0xA8, 0x27,
            0x56, 0x4E, 0x11, 0x71, 0x8E, 0x01, 0x72, 0x92, 0xFA, 0xF2, 0x32, 0x26, 0xA9, 0x66, 0x14, 0xB8,
        ],
    ]

    /// The length of a READ_SIG answer: r and s, 16 bytes each.
    public static let length = 32

    /// Whether `signature` is one of `keys`' signatures of `uid`. A signature of
    /// another length, or with r or s out of range, is not; throws only when
    /// libcrypto itself fails (out of memory, curve missing).
    public static func verify(uid: [UInt8], signature: [UInt8], keys: [[UInt8]] = nxpPublicKeys) throws(CryptoError) -> Bool {
        guard signature.count == length, !uid.isEmpty else { return false }
        let der = try derSignature(signature)
        for key in keys {
            if try verify(uid: uid, der: der, key: key) { return true }
        }
        return false
    }

    /// r ‖ s as the DER `ECDSA-Sig-Value` libcrypto's verifier takes.
    private static func derSignature(_ signature: [UInt8]) throws(CryptoError) -> [UInt8] {
        guard let value = ECDSA_SIG_new() else { throw .library("ECDSA_SIG_new") }
        defer { ECDSA_SIG_free(value) }
        let half = length / 2
        let r = signature.withUnsafeBufferPointer { BN_bin2bn($0.baseAddress, Int32(half), nil) }
        let s = signature.withUnsafeBufferPointer { BN_bin2bn($0.baseAddress! + half, Int32(half), nil) }
        guard let r, let s, ECDSA_SIG_set0(value, r, s) == 1 else {
            BN_free(r)
            BN_free(s)
            throw .library("ECDSA_SIG_set0")
        }
        let size = i2d_ECDSA_SIG(value, nil)
        guard size > 0 else { throw .library("i2d_ECDSA_SIG") }
        var der = [UInt8](repeating: 0, count: Int(size))
        let written = der.withUnsafeMutableBufferPointer { buffer in
            var cursor = buffer.baseAddress
            return i2d_ECDSA_SIG(value, &cursor)
        }
        guard written == size else { throw .library("i2d_ECDSA_SIG") }
        return der
    }

    /// One key's verdict. With no digest set, libcrypto's ECDSA takes the bytes given
    /// as the digest: a 7-byte UID, shorter than the 128-bit order, is taken whole as
    /// the integer e, as NXP computes it (a longer input would be cut to its leftmost
    /// 128 bits, as FIPS 186 says).
    private static func verify(uid: [UInt8], der: [UInt8], key: [UInt8]) throws(CryptoError) -> Bool {
        let publicKey = try publicKey(key)
        defer { EVP_PKEY_free(publicKey) }
        guard let context = EVP_PKEY_CTX_new_from_pkey(nil, publicKey, nil) else { throw .library("EVP_PKEY_CTX_new_from_pkey") }
        defer { EVP_PKEY_CTX_free(context) }
        guard EVP_PKEY_verify_init(context) == 1 else { throw .library("EVP_PKEY_verify_init") }
        let result = der.withUnsafeBufferPointer { der in
            uid.withUnsafeBufferPointer { uid in
                EVP_PKEY_verify(context, der.baseAddress, der.count, uid.baseAddress, uid.count)
            }
        }
        return result == 1
    }

    /// `EVP_PKEY_PUBLIC_KEY`, a macro Swift does not import: the public key and every domain parameter.
    private static let publicKeySelection = OSSL_KEYMGMT_SELECT_PUBLIC_KEY | OSSL_KEYMGMT_SELECT_DOMAIN_PARAMETERS | OSSL_KEYMGMT_SELECT_OTHER_PARAMETERS

    /// An EC public key on secp128r1 from its uncompressed point.
    private static func publicKey(_ point: [UInt8]) throws(CryptoError) -> OpaquePointer {
        guard let context = EVP_PKEY_CTX_new_from_name(nil, "EC", nil) else { throw .library("EVP_PKEY_CTX_new_from_name(EC)") }
        defer { EVP_PKEY_CTX_free(context) }
        var key: OpaquePointer?
        // The parameters keep pointers to their names and values: all must outlive the call.
        let ok = OSSL_PKEY_PARAM_GROUP_NAME.withCString { groupName in
            OSSL_PKEY_PARAM_PUB_KEY.withCString { pointName in
                "secp128r1".withCString { curve in
                    point.withUnsafeBufferPointer { point in
                        var parameters = [
                            OSSL_PARAM_construct_utf8_string(groupName, UnsafeMutablePointer(mutating: curve), 0),
                            OSSL_PARAM_construct_octet_string(pointName, UnsafeMutableRawPointer(mutating: point.baseAddress), point.count),
                            OSSL_PARAM_construct_end(),
                        ]
                        return EVP_PKEY_fromdata_init(context) == 1 && EVP_PKEY_fromdata(context, &key, publicKeySelection, &parameters) == 1
                    }
                }
            }
        }
        guard ok, let key else { throw .library("EVP_PKEY_fromdata(secp128r1)") }
        return key
    }
}
