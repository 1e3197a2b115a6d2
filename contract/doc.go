// Package contract is the speech service's contract as voxform knows it:
// the synthesis models and their rules, voices and languages, audio
// containers, encodings and their aliases with the defaults and the rules
// that resolve them (Resolve), the mapping of a resolved format to
// audio.Format, the recognition APIs with their languages and limits, the
// language and API a listening check is transcribed with (ListenLanguage,
// ListenAPI), and
// what counts as a loopback address. Every other package (schema, planner,
// speechapi, executor) asks this one; none spells a container, a default
// or a limit of its own. The emulator stays an independent implementation
// on purpose, so that the two can disagree in tests.
//
// Sources: shared/service-docs/speech-synthesis.md ("audio_config", "Audio
// format reference", models and voices) and speech-recognition.md (APIs,
// languages, limits).
package contract
