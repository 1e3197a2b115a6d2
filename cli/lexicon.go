package cli

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"path/filepath"

	"github.com/voxform/voxform/internal/untrusted"
	"github.com/voxform/voxform/narration"
	"github.com/voxform/voxform/owned"
)

func init() {
	register(&command{name: "lexicon", synopsis: "write a pronunciation lexicon as W3C PLS ('voxform lexicon export')", run: runLexicon})
}

const lexiconUsage = `
Usage: voxform lexicon export [-format pls] [-lang TAG] [-o FILE] LEXICON

Writes the pronunciation lexicon LEXICON (a .csv, .tsv, .yaml, .yml, .pls
or .xml file, as lexicon: reads it) as a W3C Pronunciation Lexicon
Specification (PLS) 1.0 document, for speech services that take PLS: one
<lexeme> an entry, its term the <grapheme> and its spoken form the
<alias>. A PLS lexicon has one language (xml:lang): that of the entries,
which must all name the same one, or -lang, under which entries for every
language are written too. PLS has no case rule: an entry with case: exact
is written all the same and matches in either case (each is named on
stderr). The lexicon goes to standard output, or with -o to FILE, written
whole or not at all. It reads nothing else and calls no service.

Flags:
`

func runLexicon(_ context.Context, env *Env, args []string) error {
	export := len(args) > 0 && args[0] == "export"
	if export {
		args = args[1:]
	}
	fs := newFlagSet(env, "lexicon export", lexiconUsage)
	format := fs.String("format", "pls", "write the lexicon as `FORMAT` (pls: W3C PLS 1.0)")
	lang := fs.String("lang", "", "the PLS lexicon's language (xml:lang) `TAG`, for entries of every language too (default: the entries' language)")
	out := fs.String("o", "", "write the lexicon to `FILE` (relative to the working directory), atomically, instead of standard output")
	if err := parseFlags(fs, args); err != nil {
		return err
	}
	switch {
	case !export:
		return usageErrorf("lexicon: want a subcommand: export")
	case *format != "pls":
		return usageErrorf("lexicon export: -format %q: the format export writes is pls", *format)
	case fs.NArg() != 1:
		return usageErrorf("lexicon export takes one LEXICON file")
	}
	l, err := readLexiconFile(env, fs.Arg(0))
	if err != nil {
		return err
	}
	var b bytes.Buffer
	inexact, err := writePLS(env, &b, l, *lang)
	if err != nil {
		return err
	}
	for _, e := range inexact {
		fmt.Fprintf(env.Stderr, "voxform: warning: %s\n", untrusted.Escape(fmt.Sprintf(
			"%s: entry %q has case: exact, which PLS cannot say: it matches in either case there", e.Pos, e.Term)))
	}
	if *out == "" {
		_, err := env.Stdout.Write(b.Bytes())
		return err
	}
	path := *out
	if !filepath.IsAbs(path) {
		path = filepath.Join(env.Dir, path)
	}
	return owned.WriteFile(path, 0o644, func(w io.Writer) error {
		_, err := w.Write(b.Bytes())
		return err
	})
}

// readLexiconFile reads the lexicon at name (relative to the working
// directory), a regular file only; what of it cannot apply is a warning
// on stderr.
func readLexiconFile(env *Env, name string) (*narration.Lexicon, error) {
	path := name
	if !filepath.IsAbs(path) {
		path = filepath.Join(env.Dir, path)
	}
	f, err := owned.OpenRegular(path)
	if err != nil {
		return nil, fmt.Errorf("read lexicon %s: %w", name, err)
	}
	defer f.Close()
	l, err := narration.ReadLexicon(name, f)
	if err != nil {
		return nil, lexiconErrors(env, err)
	}
	for _, w := range l.Warnings() {
		fmt.Fprintf(env.Stderr, "voxform: warning: %s\n", untrusted.Escape(w.Error()))
	}
	return l, nil
}

// writePLS writes l as PLS for lang (or the entries' language).
func writePLS(env *Env, w io.Writer, l *narration.Lexicon, lang string) ([]*narration.Entry, error) {
	lang, err := narration.PLSLanguage(l, lang)
	if err != nil {
		return nil, lexiconErrors(env, err)
	}
	inexact, err := narration.WritePLS(w, l, lang)
	if err != nil {
		return nil, lexiconErrors(env, err)
	}
	return inexact, nil
}

// lexiconErrors prints every problem of an ErrorList, one a line at its
// place, and returns an error that counts them; other errors are returned
// as they are.
func lexiconErrors(env *Env, err error) error {
	var list narration.ErrorList
	if !errors.As(err, &list) {
		return fmt.Errorf("lexicon export: %w", err)
	}
	for _, e := range list {
		fmt.Fprintln(env.Stderr, untrusted.Escape(e.Pos.String()+": error: "+e.Msg))
	}
	return fmt.Errorf("lexicon export: %d problem(s), listed above", len(list))
}
