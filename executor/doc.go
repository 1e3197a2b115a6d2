// Package executor runs a Plan: dependency order, parallel workers, rate
// limits, retries, atomic validated outputs, journaled state recording,
// interruption and resumption of remote batch jobs. It is the only package
// that calls speechapi.
//
// One Limiter bounds every request of an apply: its Transport decorates the
// client's HTTP transport, and WebSocket sessions acquire it around each
// session. It paces requests at the rate the service admits, learned from
// its 429s (pace.go), and halves its concurrency on 429s; it never retries:
// speechapi's retry is the one retry layer. Before each batch job create a state.JobIntent is journaled; at
// the start of an apply (intents of a process that died) and at its end
// (this run's), jobs in CREATED that an intent accounts for and that are
// recorded nowhere are cancelled as orphans: they were never started, so
// never billed.
//
// An apply never bills more than its plan priced: before its first call,
// a synthesis checks that what it is about to bill (the whole text, or the
// chunks its store lacks) is no more than the characters the plan priced
// for it (allowance), and fails with ErrUnpriced otherwise, calling
// nothing: a chunk the plan found cached and that is gone since is planned
// again, not paid for unseen, and the budget the plan was checked against
// holds. Each take and listening check spends from the action's
// allowance (the plan's worst case, regeneration included) before it is
// sent: audio longer than its check was priced at is not sent.
//
// Adopt (adopt.go) puts a file in place as a synthesis's output without a
// call ('voxform import', 'voxform use'), through the same output writing
// and recording as apply; Options.Recorded tells the takes journal of
// every output an apply records. A recorded synthesis (recorded.go) is
// made from its recording with no call: read inside the manifest
// directory, refused when changed since the plan, copied or converted
// (contract.CheckRecording) through the same output writing, recorded
// with origin recorded and kept in the output cache like the service's.
//
// A synthesis with listen: is checked take by take (listen.go, takes.go,
// listen_chunks.go): its audio sent whole, or each chunk's own audio, is
// rendered and transcribed back, the check kept in the cache under its
// fingerprint before it is judged (planner.Judge) and looked up there
// first, so that no check is paid twice; the API key is redacted from the
// transcript when received. A failing take is synthesized again while
// listen.regenerate allows; one that fails every take is committed and
// recorded failing (the summary's ListenFailed), unless the state records
// a passing output of the same request still in place.
//
// Each kind of work (synthesis, embedding, transcription, re-rendering,
// moves, deletions, batch jobs) is one operation, given explicitly what it
// needs; the scheduler only orders, limits and accounts. A unit calling
// the service holds one of Options.Parallelism slots and releases it
// explicitly once its calls are done, so that writing and recording its
// outputs does not hold back the next call.
package executor
