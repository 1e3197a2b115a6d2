// Package cli implements voxform's subcommands. Each subcommand lives in its
// own file: it parses its flags into an options struct and calls a plain
// function that tests can call without flags. Only this package (and main)
// reads flags and the environment, writes to the terminal and picks exit codes.
// What a server, a remote or a state wrote reaches the terminal through
// internal/untrusted only (escaped, excerpted); plan, apply and the other
// commands fold warnings of one kind after three (validate and -json list
// them all).
//
// Exit codes: 0 success, 1 error, 2 changes present (plan -detailed-exitcode),
// 130 interrupted.
package cli
