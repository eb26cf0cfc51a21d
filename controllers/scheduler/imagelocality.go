package scheduler

import (
	"strings"

	"github.com/ctrlkit/ctrlkit/controllers/api"
)

// ScoreImageLocality is kube-scheduler's ImageLocality score plugin
// (pkg/scheduler/framework/plugins/imagelocality): nodes that already
// hold the pod's images, weighted by size and by how widely the image
// has spread, score higher.
const ScoreImageLocality = "ImageLocality"

// The bounds of ImageLocality's score, as kube-scheduler's: a sum of
// scaled image sizes below minImageThreshold scores 0, and at or above
// maxContainerImageThreshold × the number of containers it scores
// MaxNodeScore.
const (
	mebibyte                   int64 = 1024 * 1024
	minImageThreshold          int64 = 23 * mebibyte
	maxContainerImageThreshold int64 = 1000 * mebibyte
)

// imageState is one image name as the cache sees it across the nodes:
// its size (from the first node that reported the name, as kube's
// cache keeps it) and how many nodes hold it.
type imageState struct {
	size  int64
	nodes int
}

// imageNames returns the names node.status.images lists, each once,
// with the size of the image that lists it first.
func imageNames(node *api.Node) map[string]int64 {
	if len(node.Status.Images) == 0 {
		return nil
	}
	m := make(map[string]int64)
	for _, img := range node.Status.Images {
		for _, name := range img.Names {
			if _, ok := m[name]; !ok {
				m[name] = img.SizeBytes
			}
		}
	}
	return m
}

// addImages counts the image names of n in states (sign +1) or
// uncounts them (sign −1), dropping a name no node holds any more.
func addImages(states map[string]*imageState, n map[string]int64, sign int) {
	for name, size := range n {
		st, ok := states[name]
		if !ok {
			if sign < 0 {
				continue
			}
			st = &imageState{size: size}
			states[name] = st
		}
		st.nodes += sign
		if st.nodes <= 0 {
			delete(states, name)
		}
	}
}

// normalizedImageName is kube-scheduler's: a reference without a tag
// after its last "/" gets ":latest" (a digest reference, with its
// "@sha256:…", is kept as it is).
func normalizedImageName(name string) string {
	if strings.LastIndex(name, ":") <= strings.LastIndex(name, "/") {
		name += ":latest"
	}
	return name
}

// imageLocalityState is ImageLocality's view of the pod for one attempt:
// its images (init containers, then containers; normalized), their
// cluster-wide states and the number of nodes.
type imageLocalityState struct {
	images     []string
	states     []*imageState // per images entry; nil when no node has it
	totalNodes int
	containers int
}

// newImageLocalityState looks the pod's images up in states.
func newImageLocalityState(pod *api.Pod, states map[string]*imageState, totalNodes int) *imageLocalityState {
	s := &imageLocalityState{totalNodes: totalNodes, containers: len(pod.Spec.InitContainers) + len(pod.Spec.Containers)}
	for _, cs := range [][]api.Container{pod.Spec.InitContainers, pod.Spec.Containers} {
		for i := range cs {
			name := normalizedImageName(cs[i].Image)
			s.images = append(s.images, name)
			s.states = append(s.states, states[name])
		}
	}
	return s
}

// skipImageLocality skips ImageLocality's per-node work when no node
// holds any of the pod's images: every node would score 0
// (imageLocalityPriority of a sum of 0).
func skipImageLocality(pc *podCtx) bool {
	s := pc.images
	if s == nil || s.containers == 0 {
		return true
	}
	for _, st := range s.states {
		if st != nil {
			return false
		}
	}
	return true
}

// scoreImageLocality is ImageLocality's Score: the sum, over the pod's
// init containers and containers whose image the node holds, of the
// image's size × (nodes holding it / all nodes), clamped to
// [minImageThreshold, maxContainerImageThreshold × containers] and
// scaled linearly to 0..MaxNodeScore. It needs no normalization.
func scoreImageLocality(pc *podCtx, n *NodeInfo) int64 {
	s := pc.images
	if s == nil || s.containers == 0 || len(n.images) == 0 {
		return 0
	}
	var sum int64
	for i, name := range s.images {
		st := s.states[i]
		if st == nil {
			continue
		}
		if _, ok := n.images[name]; !ok {
			continue
		}
		spread := float64(st.nodes) / float64(s.totalNodes)
		sum += int64(float64(st.size) * spread)
	}
	return imageLocalityPriority(sum, s.containers)
}

// imageLocalityPriority is kube-scheduler's calculatePriority.
func imageLocalityPriority(sum int64, containers int) int64 {
	hi := maxContainerImageThreshold * int64(containers)
	sum = min(max(sum, minImageThreshold), hi)
	return MaxNodeScore * (sum - minImageThreshold) / (hi - minImageThreshold)
}
