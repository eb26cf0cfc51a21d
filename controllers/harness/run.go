package harness

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"reflect"
	"regexp"
	"slices"
	"sort"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/ctrlkit/ctrlkit/controllers/api"
	"github.com/ctrlkit/ctrlkit/controllers/client"
	"github.com/ctrlkit/ctrlkit/controllers/controlplane"
	"github.com/ctrlkit/ctrlkit/controllers/manager"
	"github.com/ctrlkit/ctrlkit/informer"
	"github.com/ctrlkit/ctrlkit/source"
)

// Kind is a kind whose objects make part of a run's end state.
type Kind struct {
	// Name is the kind's name ("ConfigMap").
	Name string
	// List returns every object of the kind.
	List func(ctx context.Context, c client.Client) ([]api.Object, error)
}

// KindOf returns the Kind of T: KindOf[*api.ConfigMap]().
func KindOf[T api.Object]() Kind {
	var zero T
	name := reflect.New(reflect.TypeOf(zero).Elem()).Interface().(T).GroupVersionKind().Kind
	return Kind{Name: name, List: func(ctx context.Context, c client.Client) ([]api.Object, error) {
		r, err := client.For[T](c)
		if err != nil {
			return nil, err
		}
		var out []api.Object
		opts := source.ListOptions{}
		for {
			l, err := r.List(ctx, opts)
			if err != nil {
				return nil, err
			}
			for _, o := range l.Items {
				out = append(out, o)
			}
			if l.Continue == "" {
				return out, nil
			}
			opts.Continue = l.Continue
		}
	}}
}

// DefaultKinds are the kinds of the end state when Scenario.Kinds is
// nil: the workload kinds, pods, services, config maps and secrets
// (not nodes, leases or events, which heartbeats change).
func DefaultKinds() []Kind {
	return []Kind{
		KindOf[*api.ConfigMap](), KindOf[*api.Secret](), KindOf[*api.Pod](), KindOf[*api.Service](),
		KindOf[*api.Deployment](), KindOf[*api.ReplicaSet](), KindOf[*api.StatefulSet](),
		KindOf[*api.DaemonSet](), KindOf[*api.Job](), KindOf[*api.CronJob](),
	}
}

// Object is one object of an end state, normalized (see Normalize).
type Object struct {
	// Kind, Namespace and Name identify it; a name the store generated
	// from metadata.generateName is the prefix followed by "*".
	Kind, Namespace, Name string
	// JSON is the normalized object.
	JSON string
}

// id is the object's identity modulo generated names.
func (o Object) id() string { return o.Kind + " " + api.NamespacedKey(o.Namespace, o.Name) }

// dropped are the fields Normalize removes wherever they appear.
var dropped = map[string]bool{
	"uid": true, "resourceVersion": true, "creationTimestamp": true, "generation": true,
	"observedGeneration": true, "managedFields": true, "deletionGracePeriodSeconds": true,
	"podIP": true, "podIPs": true, "hostIP": true, "hostIPs": true, "containerID": true,
}

// Normalize returns objs as the differential oracle compares them. A
// name generated from metadata.generateName (the name is the prefix and
// five more characters) becomes the prefix and "*", and so does every
// occurrence of it in the other objects' strings (an owner's record of
// its child). The fields uid, resourceVersion, creationTimestamp,
// generation, observedGeneration, managedFields,
// deletionGracePeriodSeconds, podIP(s), hostIP(s) and containerID (the
// runtime's, derived from the uid) are removed at any
// depth (owner references lose their uid), and every string that is an
// RFC 3339 time becomes "<time>". The result is sorted by identity, then
// JSON.
func Normalize(kind string, objs []api.Object, masks ...Mask) ([]Object, error) {
	return normalize(map[string][]api.Object{kind: objs}, masks)
}

// Mask is a normalization of the end state beyond Normalize's, for what
// differs from run to run and is no behaviour of the controller (a uid
// in a label, an IP, a name made of the time, the order of a list whose
// order does not matter): Scenario.Mask applies each, in order, to the
// normalized objects of Kind (of every kind when Kind is ""). Sort, when
// set, is the path of a list in the object ("spec", "taints") whose
// elements are sorted by their JSON; then Pattern, when set, a regular
// expression (package regexp), is replaced by Replace (with $1 for a
// group) in the object's normalized JSON — compact, with its keys
// sorted — and in its namespace and name. The masks of the harness's own
// tests are ready-made: MaskControllerUID, MaskIPs, MaskTimeNames,
// SortList.
type Mask struct {
	// Kind is the kind masked (a Kind's Name); "" masks every kind.
	Kind string
	// Sort is the path of a list to sort, if any.
	Sort []string
	// Pattern is a regular expression to replace, if any, and Replace
	// its replacement.
	Pattern, Replace string
}

// MaskControllerUID masks the value of the Job controller's
// controller-uid and batch.kubernetes.io/controller-uid labels and
// selectors (a uid, which differs from run to run) as "*".
func MaskControllerUID() Mask {
	return Mask{Pattern: `("(?:batch\.kubernetes\.io/)?controller-uid":)"[^"]*"`, Replace: `$1"*"`}
}

// MaskIPs masks every "ip" field (an Endpoints address, an
// EndpointSlice's, a pod's podIPs entry) as "*": which pod got which IP
// depends on the order pods were created in.
func MaskIPs() Mask {
	return Mask{Pattern: `"ip":"[^"]*"`, Replace: `"ip":"*"`}
}

// MaskTimeNames masks, in the objects of kind (every kind for ""), the
// names made of prefix and a number — a CronJob's Jobs are named after
// their scheduled minute, and an exploration's runs follow each other
// in virtual time — as prefix and "N".
func MaskTimeNames(kind, prefix string) Mask {
	return Mask{Kind: kind, Pattern: regexp.QuoteMeta(prefix) + `\d+`, Replace: prefix + "N"}
}

// SortList sorts the list at path in the objects of kind (a node's
// spec.taints, which independent writers add in either order).
func SortList(kind string, path ...string) Mask {
	return Mask{Kind: kind, Sort: path}
}

// compiled is a Mask ready to apply.
type compiled struct {
	Mask
	re *regexp.Regexp
}

// compileMasks compiles masks.
func compileMasks(masks []Mask) ([]compiled, error) {
	out := make([]compiled, len(masks))
	for i, m := range masks {
		out[i].Mask = m
		if m.Pattern != "" {
			re, err := regexp.Compile(m.Pattern)
			if err != nil {
				return nil, fmt.Errorf("harness: mask %d: %w", i, err)
			}
			out[i].re = re
		}
	}
	return out, nil
}

// sortAt sorts the list at path in v by its elements' JSON.
func sortAt(v any, path []string) {
	for _, k := range path {
		m, ok := v.(map[string]any)
		if !ok {
			return
		}
		v = m[k]
	}
	l, ok := v.([]any)
	if !ok {
		return
	}
	key := func(e any) string { b, _ := json.Marshal(e); return string(b) }
	slices.SortStableFunc(l, func(a, b any) int { return strings.Compare(key(a), key(b)) })
}

func normalize(byKind map[string][]api.Object, masks []Mask) ([]Object, error) {
	out, _, err := normalizeKeyed(byKind, masks)
	return out, err
}

// normalizeKeyed is normalize that also returns, for each object of the
// result, its kind and key as read ("Pod default/web-x7k2p").
func normalizeKeyed(byKind map[string][]api.Object, masks []Mask) ([]Object, []string, error) {
	ms, err := compileMasks(masks)
	if err != nil {
		return nil, nil, err
	}
	generated := map[string]string{}
	for _, objs := range byKind {
		for _, o := range objs {
			m := o.GetObjectMeta()
			if m.GenerateName != "" && strings.HasPrefix(m.Name, m.GenerateName) && len(m.Name) > len(m.GenerateName) {
				generated[m.Name] = m.GenerateName + "*"
			}
		}
	}
	var out []Object
	var keys []string
	for kind, objs := range byKind {
		for _, o := range objs {
			data, err := json.Marshal(o)
			if err != nil {
				return nil, nil, fmt.Errorf("harness: %s %s: %w", kind, api.Key(o), err)
			}
			var v any
			if err := json.Unmarshal(data, &v); err != nil {
				return nil, nil, err
			}
			v = clean(v, generated)
			for _, m := range ms {
				if len(m.Sort) > 0 && (m.Kind == "" || m.Kind == kind) {
					sortAt(v, m.Sort)
				}
			}
			data, err = json.Marshal(v)
			if err != nil {
				return nil, nil, err
			}
			m := o.GetObjectMeta()
			name, ns, js := m.Name, m.Namespace, string(data)
			if g, ok := generated[name]; ok {
				name = g
			}
			for _, m := range ms {
				if m.re != nil && (m.Kind == "" || m.Kind == kind) {
					js = m.re.ReplaceAllString(js, m.Replace)
					name = m.re.ReplaceAllString(name, m.Replace)
					ns = m.re.ReplaceAllString(ns, m.Replace)
				}
			}
			out = append(out, Object{Kind: kind, Namespace: ns, Name: name, JSON: js})
			keys = append(keys, kind+" "+api.Key(o))
		}
	}
	if len(out) == 0 {
		return nil, nil, nil
	}
	idx := make([]int, len(out))
	for i := range idx {
		idx[i] = i
	}
	sort.SliceStable(idx, func(i, j int) bool {
		a, b := out[idx[i]], out[idx[j]]
		if a.id() != b.id() {
			return a.id() < b.id()
		}
		return a.JSON < b.JSON
	})
	sorted, sortedKeys := make([]Object, len(out)), make([]string, len(out))
	for i, k := range idx {
		sorted[i], sortedKeys[i] = out[k], keys[k]
	}
	return sorted, sortedKeys, nil
}

// clean normalizes a decoded JSON value.
func clean(v any, generated map[string]string) any {
	switch v := v.(type) {
	case map[string]any:
		for k, e := range v {
			if dropped[k] {
				delete(v, k)
				continue
			}
			v[k] = clean(e, generated)
		}
		return v
	case []any:
		for i, e := range v {
			v[i] = clean(e, generated)
		}
		return v
	case string:
		if _, err := time.Parse(time.RFC3339, v); err == nil {
			return "<time>"
		}
		for name, g := range generated {
			v = strings.ReplaceAll(v, name, g)
		}
		return v
	}
	return v
}

// Outcome is what one run did and what its oracle found.
type Outcome struct {
	// Perturbations are the run's, in write order.
	Perturbations []Perturbation
	// Writes counts the controller's writes (every attempt).
	Writes int
	// Timeline lists them, the first MaxTimeline only, in the order
	// they completed (a write a Handover partition held comes after
	// those made meanwhile).
	Timeline []Entry
	// End is the normalized end state.
	End []Object
	// Problems are what the oracle found; none for a good run. An
	// invariant broken after a write is reported at the write that broke
	// it, again only if it held in between.
	Problems []string
	// Elapsed is the run's virtual time.
	Elapsed time.Duration
	// Excused lists the objects of the end state that Scenario.Extra
	// set aside before the differential oracle compared it ("Job
	// default/tick-29000004: <reason>").
	Excused []string
}

// Failed reports whether the oracle found a problem.
func (o *Outcome) Failed() bool { return len(o.Problems) > 0 }

// checkInvariants returns the violated invariants.
func checkInvariants(ctx context.Context, c client.Client, invs []Invariant) []string {
	var out []string
	for _, inv := range invs {
		if err := inv.Check(ctx, c); err != nil {
			out = append(out, fmt.Sprintf("invariant %s: %v", inv.Name, err))
		}
	}
	return out
}

// defaults fills in s's defaults.
func (s Scenario) defaults() Scenario {
	if s.Kinds == nil {
		s.Kinds = DefaultKinds()
	}
	if s.Quiet <= 0 {
		s.Quiet = 5 * time.Second
	}
	if s.Converge <= 0 {
		s.Converge = 10 * time.Minute
	}
	if s.TTL <= 0 {
		s.TTL = ExpectationsTTL
	}
	if s.Options.Manager.Controllers == nil {
		// Not none: the control plane's Settle never returns with no
		// controller at all.
		s.Options.Manager.Controllers = []string{manager.ServiceAccountController}
	}
	return s
}

// Replay runs scenario s with controller ctl once under perturbations ps
// (none: the reference run) and returns its outcome; ref, when not nil,
// is the reference outcome the differential oracle compares with. Run it
// in a testing/synctest bubble: the control plane's time is the bubble's
// virtual time, and a run replays exactly when the controller's writes
// depend only on what it reads (one worker, no randomness of its own).
// The error is the harness's own (a control plane that would not
// start); what the controller did wrong is in Outcome.Problems.
func Replay(ctx context.Context, s Scenario, ctl Controller, ref *Outcome, ps []Perturbation) (*Outcome, error) {
	s = s.defaults()
	for i, e := range s.Extra {
		if e.Kind == "" || e.Match == nil {
			return nil, fmt.Errorf("harness: Scenario.Extra[%d]: Kind and Match are required", i)
		}
	}
	if s.Election == nil && slices.ContainsFunc(ps, func(p Perturbation) bool { return p.Fault == Handover }) {
		return nil, errors.New("harness: the Handover fault needs Scenario.Election")
	}
	ps = slices.Clone(ps)
	slices.SortStableFunc(ps, func(a, b Perturbation) int { return a.Write - b.Write })
	out := &Outcome{Perturbations: ps}
	cp, err := controlplane.Start(ctx, s.Options)
	if err != nil {
		return nil, err
	}
	rec := &recorder{start: time.Now(), faults: map[int]Fault{}, release: make(chan struct{}), snapshot: cp.Cluster.ResourceVersions,
		live: map[*incarnation]bool{}}
	for _, p := range ps {
		rec.faults[p.Write] = p.Fault
	}
	if len(s.Invariants) > 0 {
		rec.check = func(ctx context.Context) []string {
			return checkInvariants(context.WithoutCancel(ctx), cp.Cluster, s.Invariants)
		}
	}
	var problems []string
	var pmu sync.Mutex
	problem := func(format string, args ...any) {
		pmu.Lock()
		problems = append(problems, fmt.Sprintf(format, args...))
		pmu.Unlock()
	}

	runCtx, stopCtl := context.WithCancel(ctx)
	var ctlWG sync.WaitGroup
	// runReplica runs the incarnations of one replica (rep nil: the one
	// controller of a scenario without Election) until the run ends.
	runReplica := func(rep *replica, leading func()) {
		for i := 0; ; i++ {
			ictx, cancel := context.WithCancel(runCtx)
			rs := &informer.Resyncs{}
			ictx = informer.WithResyncs(ictx, rs)
			rec.mu.Lock()
			inc := &incarnation{n: i, replica: rep, resyncs: rs, cancel: cancel, stale: rec.stale, listed: map[string]bool{}, watched: map[string]bool{},
				watches: map[string]context.CancelFunc{}, cut: map[string]chan struct{}{}}
			rec.stale, rec.current = nil, inc
			rec.live[inc] = true
			rec.mu.Unlock()
			name := strconv.Itoa(i)
			if rep != nil {
				name = rep.name + name
				e, err := newElector(cp.Cluster, s.Election, rep, func() { rec.leads(rep); leading() })
				if err != nil {
					cancel()
					problem("replica %s: %v", rep.name, err)
					return
				}
				ictx = context.WithValue(ictx, electorKey{}, e)
			}
			r, err := ctl(client.Intercept(cp.Cluster, rec.intercept(inc)))
			if err == nil {
				err = r.Run(ictx)
			}
			cancel()
			rec.mu.Lock()
			delete(rec.live, inc)
			rec.mu.Unlock()
			if runCtx.Err() != nil {
				return
			}
			inc.mu.Lock()
			crashed := inc.dead
			inc.mu.Unlock()
			if !crashed {
				problem("controller incarnation %s stopped by itself: %v", name, err)
				return
			}
		}
	}
	if s.Election == nil {
		ctlWG.Go(func() { runReplica(nil, func() {}) })
	} else {
		a, b := &replica{name: "a"}, &replica{name: "b"}
		var once sync.Once
		aLeads := make(chan struct{})
		ctlWG.Go(func() { runReplica(a, func() { once.Do(func() { close(aLeads) }) }) })
		ctlWG.Go(func() {
			select { // b is the standby: it starts once a leads
			case <-aLeads:
				runReplica(b, func() {})
			case <-runCtx.Done():
			}
		})
	}

	settleOnce := func(what string) bool {
		sctx, cancel := context.WithTimeout(ctx, s.Converge)
		defer cancel()
		for {
			// A cut's relist is held for CutHold of a settle at most:
			// the settle waits in spans of CutHold, and a cut held
			// across a whole span relists.
			hctx, hcancel := context.WithTimeout(sctx, CutHold)
			err := cp.Settle(hctx, s.Quiet)
			hcancel()
			if err == nil {
				return true
			}
			if sctx.Err() != nil || ctx.Err() != nil || !errors.Is(err, context.DeadlineExceeded) {
				problem("no convergence within %s after %s: %v", s.Converge, what, err)
				return false
			}
			rec.releaseCuts()
		}
	}
	settle := func(what string) bool {
		ok := settleOnce(what)
		// An Expire write meanwhile: its TTL passes, then the system
		// settles again (a write of that settle may be an Expire too).
		// A handover under way: the standby takes over, then the system
		// settles again.
		for i := 0; ok && i < 100; i++ {
			if taken := rec.handingOver(); taken != nil {
				select {
				case <-taken:
				case <-time.After(s.Converge):
					problem("no handover within %s after %s: the standby never led", s.Converge, what)
					return false
				}
				time.Sleep(s.Quiet) // the new leader's time to act
				ok = settleOnce(what + " and a leader handover")
				rec.heal() // the old leader's held writes go out
				time.Sleep(s.Quiet)
				ok = ok && settleOnce(what+" and the old leader's partition healing")
				continue
			}
			if !rec.expired() {
				break
			}
			time.Sleep(s.TTL)
			ok = settleOnce(what + " and " + s.TTL.String() + " passing")
		}
		return ok
	}
	ok := true
	if err := cp.Apply(ctx, s.Objects...); err != nil {
		problem("apply: %v", err)
		ok = false
	}
	ok = ok && settle("applying the objects")
	for i, st := range s.Steps {
		if !ok {
			break
		}
		name := st.Name
		if name == "" {
			name = fmt.Sprintf("step %d", i+1)
		}
		rec.beginChange()
		if st.Do != nil {
			if err := st.Do(ctx, cp.Cluster); err != nil {
				problem("%s: %v", name, err)
				ok = false
				break
			}
		}
		rec.changed() // cut watches relist, a Stale restart happens
		if st.Sleep > 0 {
			time.Sleep(st.Sleep)
		}
		ok = settle(name)
	}
	// A watch cut, or a Stale write, after the last change: now.
	// The stores may have been quiet for long: the controller gets a
	// quiet period to act before the settle.
	for i := 0; ok && i < 100 && rec.changed(); i++ {
		time.Sleep(s.Quiet)
		ok = settle("the perturbations pending at the end")
	}

	// The end state, read while the controller still runs.
	byKind := map[string][]api.Object{}
	for _, k := range s.Kinds {
		objs, err := k.List(ctx, cp.Cluster)
		if err != nil {
			problem("list %s: %v", k.Name, err)
			continue
		}
		byKind[k.Name] = objs
	}
	for _, v := range checkInvariants(ctx, cp.Cluster, s.Invariants) {
		problem("at the end: %s", v)
	}
	stopCtl()
	ctlWG.Wait()
	if err := cp.Stop(); err != nil {
		problem("control plane: %v", err)
	}
	out.Elapsed = time.Since(rec.start)
	rec.mu.Lock()
	out.Writes, out.Timeline = rec.n, rec.timeline
	problems = slices.Concat(rec.violations, problems) // the writes' first
	rec.mu.Unlock()
	var keys []string
	if out.End, keys, err = normalizeKeyed(byKind, s.Mask); err != nil {
		return nil, err
	}
	if ref != nil {
		end := out.End
		end, out.Excused = excuse(ref.End, end, keys, matchExtra(s.Extra, byKind), s.Extra)
		problems = append(problems, compare(ref.End, end)...)
		problems = append(problems, wronglyDeleted(ref.End, out.End, out.Timeline)...)
	}
	out.Problems = problems
	return out, nil
}

// compare is the differential oracle: the problems of end state got
// against the reference end state want.
func compare(want, got []Object) []string {
	group := func(objs []Object) (map[string][]string, []string) {
		m := map[string][]string{}
		var ids []string
		for _, o := range objs {
			if _, ok := m[o.id()]; !ok {
				ids = append(ids, o.id())
			}
			m[o.id()] = append(m[o.id()], o.JSON)
		}
		return m, ids
	}
	w, wids := group(want)
	g, gids := group(got)
	var out []string
	for _, id := range wids {
		switch gs, ws := g[id], w[id]; {
		case len(gs) == 0:
			out = append(out, fmt.Sprintf("missing: %s (the reference run ends with it)", id))
		case len(gs) > len(ws):
			out = append(out, fmt.Sprintf("duplicate create: %d live %s where the reference run has %d", len(gs), id, len(ws)))
		case len(gs) < len(ws):
			out = append(out, fmt.Sprintf("missing: %d live %s where the reference run has %d", len(gs), id, len(ws)))
		case !slices.Equal(gs, ws):
			out = append(out, fmt.Sprintf("differs: %s\n\treference: %s\n\tthis run:  %s", id, strings.Join(ws, " "), strings.Join(gs, " ")))
		}
	}
	for _, id := range gids {
		if _, ok := w[id]; !ok {
			out = append(out, fmt.Sprintf("extra: %s (absent from the reference run's end)", id))
		}
	}
	return out
}

// matchExtra returns, by an object's kind and key as read,
// the index of the first of extras whose predicate matches it.
func matchExtra(extras []Extra, byKind map[string][]api.Object) map[string]int {
	m := map[string]int{}
	for i, e := range extras {
		for _, o := range byKind[e.Kind] {
			k := e.Kind + " " + api.Key(o)
			if _, ok := m[k]; !ok && e.Match(o, byKind) {
				m[k] = i
			}
		}
	}
	return m
}

// excuse sets aside, of end state got (whose objects' kinds and keys as
// read are keys), the objects marked by matchExtra (an index of extras)
// where got has more objects of their identity than want, at most each
// Extra's Max; it returns the rest and a line for each object set aside.
func excuse(want, got []Object, keys []string, marked map[string]int, extras []Extra) ([]Object, []string) {
	if len(marked) == 0 {
		return got, nil
	}
	surplus := map[string]int{}
	for _, o := range got {
		surplus[o.id()]++
	}
	for _, o := range want {
		surplus[o.id()]--
	}
	left := make([]int, len(extras))
	for i, e := range extras {
		left[i] = e.Max
		if left[i] <= 0 {
			left[i] = 1
		}
	}
	var kept []Object
	var excused []string
	for n, o := range got {
		i, ok := marked[keys[n]]
		if ok && surplus[o.id()] > 0 && left[i] > 0 {
			surplus[o.id()]--
			left[i]--
			line := keys[n]
			if r := extras[i].Reason; r != "" {
				line += ": " + r
			}
			excused = append(excused, line)
			continue
		}
		kept = append(kept, o)
	}
	return kept, excused
}

// errNotDeterministic is returned when two reference runs differ.
var errNotDeterministic = errors.New("harness: two unperturbed runs of the scenario end differently or write differently; the harness needs a deterministic controller and scenario")

// wronglyDeleted returns a "wrongly deleted" problem for each object of
// the reference end state that this run lacks and that the controller
// deleted (a successful delete of its key in the timeline).
func wronglyDeleted(want, got []Object, timeline []Entry) []string {
	live := map[string]bool{}
	for _, o := range got {
		live[o.id()] = true
	}
	var out []string
	seen := map[string]bool{}
	for _, o := range want {
		if live[o.id()] || seen[o.id()] {
			continue
		}
		seen[o.id()] = true
		key := api.NamespacedKey(o.Namespace, o.Name)
		for _, e := range timeline {
			if e.Verb == "delete" && e.Result == "ok" && e.Key == key && strings.EqualFold(e.Resource, o.Kind+"s") {
				out = append(out, fmt.Sprintf("wrongly deleted: %s by the controller's write #%d (the reference run ends with it)", o.id(), e.Write))
				break
			}
		}
	}
	return out
}
