package kubelet

import (
	"cmp"
	"crypto/sha256"
	"encoding/hex"
	"hash/fnv"
	"maps"
	"slices"
	"strings"
	"time"

	"github.com/ctrlkit/ctrlkit/controllers/api"
)

// NodeStatusMaxImages caps status.images, as the kubelet's
// nodeStatusMaxImages (default 50): the largest images are listed.
const NodeStatusMaxImages = 50

// maxImagesKept bounds the simulated image store of one node: beyond
// it, the image used least recently is forgotten (as if garbage
// collected).
const maxImagesKept = 500

// ImageSize is the simulated size of an image ref when the pod does not
// set sim.ctrlkit.io/image-size: between 10 and 999 MiB, a function of
// the ref only, so every node reports the same size for it.
func ImageSize(ref string) int64 {
	h := fnv.New64a()
	h.Write([]byte(normalizedImage(ref)))
	return int64(10+h.Sum64()%990) << 20
}

// ImageNames are the names the node reports for an image ref once
// pulled, as a container runtime lists them (repo digests first, then
// repo tags): "<repo>@sha256:<digest>" (the digest simulated from the
// normalized ref) and the ref with its tag (":latest" when it has none,
// the rule the scheduler's ImageLocality normalizes pod images by). A
// ref by digest has that one name.
func ImageNames(ref string) []string {
	if strings.Contains(ref, "@") {
		return []string{ref}
	}
	return []string{imageDigestName(ref), normalizedImage(ref)}
}

// normalizedImage adds the tag "latest" to a ref without one.
func normalizedImage(ref string) string {
	if strings.Contains(ref, "@") || strings.LastIndex(ref, ":") > strings.LastIndex(ref, "/") {
		return ref
	}
	return ref + ":latest"
}

// imageDigestName is the simulated repo digest of ref, which is also the
// imageID its containers report.
func imageDigestName(ref string) string {
	if strings.Contains(ref, "@") {
		return ref
	}
	n := normalizedImage(ref)
	sum := sha256.Sum256([]byte(n))
	return n[:strings.LastIndex(n, ":")] + "@sha256:" + hex.EncodeToString(sum[:])
}

// imagePull is an image a container of a pod started with.
type imagePull struct {
	ref  string
	size int64
}

// image is one image present on the simulated node.
type image struct {
	names    []string
	size     int64
	lastUsed time.Time
}

// imageStore is the node's images, by normalized ref. The loop owns it.
type imageStore map[string]*image

// use records that a container started with the image at now (pulling it
// if absent), forgetting the least recently used image beyond
// maxImagesKept.
func (st imageStore) use(p imagePull, now time.Time) {
	key := normalizedImage(p.ref)
	if im, ok := st[key]; ok {
		im.lastUsed = now
		return
	}
	st[key] = &image{names: ImageNames(p.ref), size: p.size, lastUsed: now}
	for len(st) > maxImagesKept {
		oldest := ""
		for k, im := range st {
			if o := st[oldest]; oldest == "" || im.lastUsed.Before(o.lastUsed) || im.lastUsed.Equal(o.lastUsed) && k < oldest {
				oldest = k
			}
		}
		delete(st, oldest)
	}
}

// list is status.images: the images by size, largest first (the
// kubelet's sliceutils.ByImageSize; equal sizes by name here, for a
// stable status), at most NodeStatusMaxImages. Nil when there are none.
func (st imageStore) list() []api.ContainerImage {
	if len(st) == 0 {
		return nil
	}
	keys := slices.SortedFunc(maps.Keys(st), func(a, b string) int {
		if c := cmp.Compare(st[b].size, st[a].size); c != 0 {
			return c
		}
		return cmp.Compare(a, b)
	})
	keys = keys[:min(len(keys), NodeStatusMaxImages)]
	out := make([]api.ContainerImage, 0, len(keys))
	for _, k := range keys {
		out = append(out, api.ContainerImage{Names: slices.Clone(st[k].names), SizeBytes: st[k].size})
	}
	return out
}
