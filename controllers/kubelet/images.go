package kubelet

import (
	"cmp"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"hash/fnv"
	"slices"
	"strings"
	"time"
	"unique"

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

// imageInfo is what the kubelet says of an image ref, made once for all
// the containers of a ctrSpec.
type imageInfo struct {
	ref    string // as the container's spec has it
	id     string // imageDigestName(ref): the imageID its containers report
	pulled string // the message of the Pulled event of a container's start
	size   int64  // ImageSize(ref)
}

func newImageInfo(ref string) imageInfo {
	return imageInfo{
		ref:    ref,
		id:     imageDigestName(ref),
		pulled: fmt.Sprintf("Container image %q already present on machine and can be accessed by the pod", ref),
		size:   ImageSize(ref),
	}
}

// imagePull is an image a container of a pod started with.
type imagePull struct {
	ref  string
	size int64
}

// image is one image present on the simulated node.
type image struct {
	key      string // the normalized ref
	names    []string
	size     int64
	lastUsed time.Time
}

// imageStore is the node's images, in no order. A slice rather than a map
// by ref: a node holds few images (at most maxImagesKept), and a map's
// smallest table costs hundreds of bytes on each of thousands of nodes.
// The loop owns it.
type imageStore []*image

// find returns the image of normalized ref key, nil if absent.
func (st imageStore) find(key string) *image {
	for _, im := range st {
		if im.key == key {
			return im
		}
	}
	return nil
}

// use records that a container started with the image at now (pulling it
// if absent), forgetting the least recently used image beyond
// maxImagesKept.
func (st *imageStore) use(p imagePull, now time.Time) {
	key := normalizedImage(p.ref)
	if im := st.find(key); im != nil {
		im.lastUsed = now
		return
	}
	// Every node that pulls an image names it alike: the nodes share
	// one copy of each name (unique.Make) rather than hold their own.
	names := ImageNames(p.ref)
	for i, n := range names {
		names[i] = unique.Make(n).Value()
	}
	key = unique.Make(key).Value()
	*st = append(*st, &image{key: key, names: names, size: p.size, lastUsed: now})
	for len(*st) > maxImagesKept {
		oldest := 0
		for i, im := range *st {
			if o := (*st)[oldest]; im.lastUsed.Before(o.lastUsed) || im.lastUsed.Equal(o.lastUsed) && im.key < o.key {
				oldest = i
			}
		}
		*st = slices.Delete(*st, oldest, oldest+1)
	}
}

// list is status.images: the images by size, largest first (the
// kubelet's sliceutils.ByImageSize; equal sizes by name here, for a
// stable status), at most NodeStatusMaxImages. Nil when there are none.
func (st imageStore) list() []api.ContainerImage {
	if len(st) == 0 {
		return nil
	}
	sorted := slices.SortedFunc(slices.Values(st), func(a, b *image) int {
		if c := cmp.Compare(b.size, a.size); c != 0 {
			return c
		}
		return cmp.Compare(a.key, b.key)
	})
	sorted = sorted[:min(len(sorted), NodeStatusMaxImages)]
	out := make([]api.ContainerImage, 0, len(sorted))
	for _, im := range sorted {
		out = append(out, api.ContainerImage{Names: slices.Clone(im.names), SizeBytes: im.size})
	}
	return out
}
