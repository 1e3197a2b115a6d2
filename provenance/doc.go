// Package provenance owns voxform's provenance records: an in-toto
// Statement v1 (https://in-toto.io/Statement/v1) whose predicate is a
// SLSA Provenance v1 (https://slsa.dev/provenance/v1), optionally signed
// as a DSSE envelope with a local ed25519 key, and the check of such a
// record against the files on disk.
//
// What a statement says of a voxform output (workspace builds it from
// the state and the manifest):
//
//   - subject: the output's path, relative to the manifest directory, and
//     its SHA-256;
//   - buildDefinition.buildType: BuildType;
//   - buildDefinition.externalParameters: the resource's address, kind
//     and the exact canonical request the state records (the text sent,
//     the settings, the content hashes of the input files; never a key);
//   - buildDefinition.resolvedDependencies: every input file (recording,
//     text_file, lexicon, reference audio, embedding, manifest files and
//     data files) by path and SHA-256, a URL input by its URL, and the git
//     commit checked out in the manifest directory when it is in a
//     repository (ReadGitHead: read from .git in Go, no git binary);
//   - runDetails: the builder (BuilderID, voxform's version), the
//     invocation id (the job id, else the first request id), the time
//     the resource was recorded, and one byproduct, "service", whose
//     annotations are the service's ids, model and what was billed.
//
// A statement is at most MaxStatementBytes encoded and names at most
// MaxDescriptors subjects and dependencies; Parse refuses anything else,
// or a statement that is not of these types, before it is used.
//
// # Signing
//
// Sign wraps a statement in a DSSE envelope (payloadType
// PayloadType): the ed25519 signature is over the DSSE pre-authentication
// encoding (PAE) of the payload type and the payload, as
// https://github.com/secure-systems-lab/dsse/blob/master/protocol.md
// specifies. Keys are PEM: a PKCS#8 private key, a PKIX public key; a key
// file is at most MaxKeyFileBytes. A signature's keyid is KeyID of the
// public key (the SHA-256 of its PKIX form), informative only: Open
// trusts a signature only by checking it with the key it is given.
//
// # Verification
//
// VerifyFiles hashes every subject and every file dependency of a
// statement and reports each missing or different. A name is read only
// inside the directory given, through owned's rule for inputs (no link
// out of it, no device or pipe, nothing of voxform's own files or
// version control's), or, when absolute or through "..", only where its
// real path lies in one of the directories named for inputs: a statement
// cannot make verify read any file it names.
// The git commit is reported, not checked: a later commit changes no
// file the statement names.
package provenance
