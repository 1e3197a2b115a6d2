package planner

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"math"
	"sort"
	"strings"

	"github.com/voxform/voxform/deliver"
	"github.com/voxform/voxform/manifest"
	"github.com/voxform/voxform/state"
)

// Remaster is the action of a synthesis whose audio stays as recorded
// while some of its delivered outputs are made again from it: a profile
// changed, an encoder changed, a delivered file went missing. Mastering
// is local: a remaster calls no service and bills nothing.
const Remaster ActionType = "remaster"

// deliverPrefix starts the output format of a delivered output.
const deliverPrefix = "deliver:"

// DeliverFormat is the output format (Output.Format, state.Output.
// Format) of a synthesis's output delivered to profile.
func DeliverFormat(profile string) string { return deliverPrefix + profile }

// IsDelivery reports whether format is a delivered output's, and its
// profile.
func IsDelivery(format string) (profile string, ok bool) {
	return strings.CutPrefix(format, deliverPrefix)
}

// EncoderFunc returns the identity of what encodes profile p's files
// (master.Identity: the mastering's version and the encoder's), or why p
// cannot be delivered on this machine (its encoder is missing): that
// fails the plan, before anything is paid for.
type EncoderFunc func(p *deliver.Profile) (string, error)

// DeliverySecondsPerChar is the speaking rate the plan assumes to hold a
// delivery profile's longest duration against a synthesis not yet made:
// about 15 characters a second at speed 1, a typical rate of the
// service's voices. A synthesis whose estimate passes the limit fails
// the plan; one that passes it only once made fails its delivery.
const DeliverySecondsPerChar = 1.0 / 15

// DeliveryFingerprint is the fingerprint of a delivered output: the
// SHA-256 of the source audio's SHA-256, the identity of the mastering
// and its encoder, and the profile's rules (deliver.Profile.Canonical).
// The profile's name is not in it.
func DeliveryFingerprint(source string, p *deliver.Profile, identity string) string {
	h := sha256.New()
	fmt.Fprintf(h, "voxform delivery\x00%s\x00%s\x00", source, identity)
	h.Write(p.Canonical())
	return hex.EncodeToString(h.Sum(nil))
}

// deliveries are a desired synthesis's delivered outputs, by format.
func (d *Desired) delivery(format string) *manifest.Delivery {
	name, ok := IsDelivery(format)
	if !ok {
		return nil
	}
	for i := range d.Details().Deliver {
		if d.Details().Deliver[i].Profile.Name == name {
			return &d.Details().Deliver[i]
		}
	}
	return nil
}

// identity returns the encoder identity of p, asking Input.Encoder once
// per profile.
func (c *computer) identity(p *deliver.Profile) (string, error) {
	if c.in.Encoder == nil {
		return "", nil
	}
	key := string(p.Canonical())
	if c.identities == nil {
		c.identities = map[string]identity{}
	}
	if id, ok := c.identities[key]; ok {
		return id.id, id.err
	}
	id, err := c.in.Encoder(p)
	c.identities[key] = identity{id, err}
	return id, err
}

type identity struct {
	id  string
	err error
}

// checkDeliveries refuses, before anything is paid for, a plan whose
// deliveries cannot be made: a profile whose encoder this machine lacks,
// and a synthesis longer than a profile's longest duration (its recorded
// duration, or its estimate at DeliverySecondsPerChar). Every problem is
// listed.
func (c *computer) checkDeliveries() error {
	var problems []string
	users := map[string][]string{}
	for _, d := range c.selDesired {
		addr := d.Address
		for _, dl := range d.Details().Deliver {
			if _, err := c.identity(dl.Profile); err != nil {
				users[dl.Profile.Name+": "+err.Error()] = append(users[dl.Profile.Name+": "+err.Error()], addr)
			}
			if p := dl.Profile; p.MaxSeconds > 0 {
				if secs, how := c.spokenSeconds(d); secs > p.MaxSeconds {
					problems = append(problems, fmt.Sprintf("%s: deliver %s: %s %.0f s, longer than the profile's limit of %g s",
						addr, p.Name, how, secs, p.MaxSeconds))
				}
			}
		}
	}
	for _, d := range c.selDesired {
		if pkg := d.Details().Package; pkg != nil {
			if _, err := c.packageIdentity(pkg); err != nil {
				problems = append(problems, fmt.Sprintf("%s: %v", d.Address, err))
			}
		}
	}
	for why, addrs := range users {
		problems = append(problems, fmt.Sprintf("deliver %s (%s)", why, neededBy(addrs)))
	}
	if len(problems) == 0 {
		return nil
	}
	sort.Strings(problems)
	return fmt.Errorf("plan: deliveries cannot be made:\n  %s", strings.Join(problems, "\n  "))
}

// neededBy names the resources that need what a plan lacks: the first
// and how many more, so that a for_each of 100,000 makes one short line.
func neededBy(addrs []string) string {
	if len(addrs) > 1 {
		return fmt.Sprintf("needed by %s and %d more", addrs[0], len(addrs)-1)
	}
	return "needed by " + addrs[0]
}

// spokenSeconds is how long d's audio is: as recorded when its request
// is unchanged and the state measured it, else estimated.
func (c *computer) spokenSeconds(d *Desired) (float64, string) {
	if prior, ok := c.st.Resources[d.Address]; ok && prior.Fingerprint == d.Fingerprint && prior.Details().DurationSeconds > 0 {
		return prior.Details().DurationSeconds, "its audio lasts"
	}
	speed := 1.0
	if w := d.Wire.Synthesis; w != nil && w.Speed > 0 {
		speed = w.Speed
	}
	return math.Ceil(float64(d.Characters) * DeliverySecondsPerChar / speed), "its text is estimated to last"
}

// deliveryStatus adds to a the work of the delivered outputs of d whose
// audio prior records intact: each one not recorded, damaged, or made
// from other audio, by another profile or encoder is remastered. It
// returns whether any is.
func (c *computer) deliveryStatus(a *Action, d *Desired, prior *state.Resource, o Output, p state.Output, recorded bool, st outputState) (bool, error) {
	dl := d.delivery(o.Format)
	if dl == nil {
		return false, fmt.Errorf("output %s: no profile declared for %s", o.Path, o.Format)
	}
	switch {
	case !recorded:
		a.Reasons = append(a.Reasons, fmt.Sprintf("deliver %s: %s not made", dl.Profile.Name, o.Path))
		return true, nil
	case st != intact:
		a.Reasons = append(a.Reasons, "deliver "+dl.Profile.Name+": "+describe(st, p.Path))
		return true, nil
	}
	audio, ok := findFormat(prior.Outputs, "")
	if !ok || p.Delivery == nil {
		a.Reasons = append(a.Reasons, fmt.Sprintf("deliver %s: %s has no delivery record", dl.Profile.Name, p.Path))
		return true, nil
	}
	id, err := c.identity(dl.Profile)
	if err != nil {
		return false, nil // checkDeliveries reports it
	}
	switch {
	case p.Delivery.Source != audio.SHA256:
		a.Reasons = append(a.Reasons, fmt.Sprintf("deliver %s: made from other audio", dl.Profile.Name))
	case p.Delivery.Encoder != id:
		a.Reasons = append(a.Reasons, fmt.Sprintf("deliver %s: encoder changed (%s -> %s)", dl.Profile.Name, shortID(p.Delivery.Encoder), shortID(id)))
	case p.Delivery.Fingerprint != DeliveryFingerprint(audio.SHA256, dl.Profile, id):
		a.Reasons = append(a.Reasons, fmt.Sprintf("deliver %s: profile changed", dl.Profile.Name))
	default:
		return false, nil
	}
	return true, nil
}

// shortID names an encoder identity in a plan's reasons: its first 8 hex
// digits of SHA-256 (an identity spells every flag: too long for a
// table).
func shortID(id string) string {
	sum := sha256.Sum256([]byte(id))
	return hex.EncodeToString(sum[:4])
}
