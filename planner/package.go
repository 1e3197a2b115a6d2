package planner

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"sort"

	"github.com/voxform/voxform/deliver"
	"github.com/voxform/voxform/manifest"
	"github.com/voxform/voxform/state"
)

// The output formats of a package (manifest.Package): its book files and
// its Podcasting 2.0 chapters.
const (
	PackageM4B      = "m4b"
	PackageMP3      = "mp3"
	PackageChapters = "chapters.json"
)

// packageOutputs are the files a package writes, in a fixed order.
func packageOutputs(p *manifest.Package) []Output {
	var outs []Output
	if p.M4B != nil {
		outs = append(outs, Output{Path: p.M4B.Output, Format: PackageM4B})
	}
	if p.MP3 != nil {
		outs = append(outs, Output{Path: p.MP3.Output, Format: PackageMP3})
	}
	if p.ChaptersJSON != "" {
		outs = append(outs, Output{Path: p.ChaptersJSON, Format: PackageChapters})
	}
	return outs
}

// pkg is the desired resource of package p: it depends on its chapters'
// syntheses, whose fingerprints (fps, by address) its own covers with
// the titles, the metadata, the cover image, the profile and the bit
// rates. Its chapters' audio and the encoder are checked against what
// the state records (packageStatus): a chapter made again for the same
// request, or another encoder, re-packages too.
func (b *builder) pkg(p *manifest.Package, fps map[string]string, outs map[string]string) (*Desired, error) {
	d := (&Desired{Address: p.Address, Kind: manifest.KindPackage, Block: p.Address, Outputs: packageOutputs(p)}).WithDetails(DesiredDetails{Package: p})
	chapters := make([]any, len(p.Chapters))
	for i, ch := range p.Chapters {
		fp, ok := fps[ch.Synthesis]
		if !ok {
			return nil, fmt.Errorf("%s: %s: chapter %d names %s, which is not declared", ch.Pos, p.Address, i+1, ch.Synthesis)
		}
		chapters[i] = map[string]any{"synthesis": ch.Synthesis, "fingerprint": fp, "title": ch.Title}
		d.Edit().DependsOn = appendOnce(d.Details().DependsOn, ch.Synthesis)
		d.Edit().Sources = append(d.Details().Sources, Source{Role: "chapter", Path: outs[ch.Synthesis], From: ch.Synthesis})
	}
	var profile map[string]any
	if err := json.Unmarshal(p.Profile.Canonical(), &profile); err != nil {
		return nil, err
	}
	req := map[string]any{"chapters": chapters, "profile": profile, "title": p.Meta.Title, "author": p.Meta.Author,
		"narrator": p.Meta.Narrator, "year": p.Meta.Year, "language": p.Meta.Language}
	if p.Cover != "" {
		sum, err := inputHash(b.hash, fieldPos(p.Fields, "cover", p.Pos), "cover", p.Cover)
		if err != nil {
			return nil, err
		}
		req["cover_sha256"] = sum
		d.Edit().Sources = append(d.Details().Sources, Source{Role: "cover", Path: p.Cover, SHA256: sum})
	}
	for _, f := range []struct {
		name string
		file *manifest.BookFile
	}{{PackageM4B, p.M4B}, {PackageMP3, p.MP3}} {
		if f.file != nil {
			req[f.name+"_bitrate"] = f.file.Bitrate
		}
	}
	if p.ChaptersJSON != "" {
		req["chapters_json"] = true
	}
	return d, b.encode(d, req)
}

func appendOnce(list []string, s string) []string {
	for _, x := range list {
		if x == s {
			return list
		}
	}
	return append(list, s)
}

// PackageSource is what a package's files are made from: the SHA-256 of
// its chapters' audio SHA-256s, in order. It is recorded on each output
// (state.Delivery.Source).
func PackageSource(chapters []string) string {
	h := sha256.New()
	for _, c := range chapters {
		fmt.Fprintf(h, "%s\n", c)
	}
	return hex.EncodeToString(h.Sum(nil))
}

// packageVersion is the version of the packaging (the join, the tags
// and chapter frames the book files carry): a new one re-packages.
const packageVersion = "1"

// PackageFingerprint is the fingerprint a package's outputs record
// (state.Delivery.Fingerprint): its request's, its chapters' audio and
// the identity of its encoder.
func PackageFingerprint(request, source, identity string) string {
	sum := sha256.Sum256([]byte("voxform package " + packageVersion + "\x00" + request + "\x00" + source + "\x00" + identity))
	return hex.EncodeToString(sum[:])
}

// chapterAudio returns the SHA-256 of the audio the state records for
// each chapter of d, in order; ok is false when one is not recorded.
func (c *computer) chapterAudio(d *Desired) ([]string, bool) {
	shas := make([]string, len(d.Details().Package.Chapters))
	for i, ch := range d.Details().Package.Chapters {
		r, ok := c.st.Resources[ch.Synthesis]
		if !ok || r.Status != state.StatusComplete || len(r.Outputs) == 0 {
			return nil, false
		}
		shas[i] = r.Outputs[0].SHA256
	}
	return shas, true
}

// packageStatus makes a Remaster of an unchanged package whose recorded
// files were made from other chapter audio or by another encoder; nil
// when they are current.
func (c *computer) packageStatus(d *Desired, prior *state.Resource) (*Action, error) {
	shas, ok := c.chapterAudio(d)
	if !ok {
		return nil, nil // a chapter is being made: the plan's own action re-packages
	}
	id, err := c.packageIdentity(d.Details().Package)
	if err != nil {
		return nil, nil // checkDeliveries reports it
	}
	source := PackageSource(shas)
	fp := PackageFingerprint(prior.Fingerprint, source, id)
	for _, o := range prior.Outputs {
		dl := o.Delivery
		switch {
		case dl == nil:
			return c.remaster(d, prior, fmt.Sprintf("%s has no delivery record", o.Path)), nil
		case dl.Source != source:
			return c.remaster(d, prior, "a chapter's audio changed"), nil
		case dl.Encoder != id:
			return c.remaster(d, prior, fmt.Sprintf("encoder changed (%s -> %s)", shortID(dl.Encoder), shortID(id))), nil
		case dl.Fingerprint != fp:
			return c.remaster(d, prior, "packaging changed"), nil
		}
	}
	return nil, nil
}

func (c *computer) remaster(d *Desired, prior *state.Resource, reason string) *Action {
	return &Action{Address: d.Address, Type: Remaster, Desired: d, Prior: prior, Reasons: []string{reason}}
}

// BookProfile is the profile a package's file of format (PackageM4B,
// PackageMP3) is made to (manifest.BookProfile).
func BookProfile(p *manifest.Package, format string) *deliver.Profile {
	if format == PackageM4B {
		return manifest.BookProfile(p.Profile, deliver.CodecAAC, p.M4B.Bitrate)
	}
	return manifest.BookProfile(p.Profile, deliver.CodecMP3, p.MP3.Bitrate)
}

// packageIdentity is the identity of the encoders of p's book files.
func (c *computer) packageIdentity(p *manifest.Package) (string, error) {
	id := ""
	for _, f := range []string{PackageM4B, PackageMP3} {
		if f == PackageM4B && p.M4B == nil || f == PackageMP3 && p.MP3 == nil {
			continue
		}
		i, err := c.identity(BookProfile(p, f))
		if err != nil {
			return "", err
		}
		id += f + ": " + i + "; "
	}
	return id, nil
}

// repackage makes a Remaster of every package whose chapters an action
// of this plan makes again (anything but a move, a delete or a remaster
// of the chapter: a replace, a paid or restored repair, a listening check
// that may regenerate, a resumed job), whose audio may then differ under
// the same fingerprint; and has every package action wait for its
// chapters' actions, listening checks included (listenWork adds those
// after the dependencies are set).
func (c *computer) repackage() {
	inPlan := make(map[string]*Action, len(c.actions))
	for _, a := range c.actions {
		inPlan[a.Address] = a
	}
	for _, d := range c.selDesired {
		if d.Details().Package == nil {
			continue
		}
		addr := d.Address
		d = c.byAddress()[addr] // as its chapters are (planOne)
		var deps, remade []string
		for i, ch := range d.Details().Package.Chapters {
			ca, ok := inPlan[ch.Synthesis]
			if !ok {
				continue
			}
			deps = appendOnce(deps, ch.Synthesis)
			if ca.Type != Move && ca.Type != Delete && ca.Type != Remaster {
				remade = append(remade, fmt.Sprintf("chapter %d %s is made again", i+1, ch.Synthesis))
			}
		}
		a := inPlan[addr]
		if prior := c.st.Resources[addr]; a == nil && len(remade) > 0 && prior != nil {
			a = &Action{Address: addr, Type: Remaster, Desired: d, Prior: prior, Reasons: remade}
			c.actions = append(c.actions, a)
			c.noops--
		}
		if a == nil {
			continue
		}
		for _, dep := range deps {
			a.DependsOn = appendOnce(a.DependsOn, dep)
		}
		sort.Strings(a.DependsOn)
	}
}
