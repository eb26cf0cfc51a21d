package scheduler

import (
	"testing"

	"github.com/ctrlkit/ctrlkit/controllers/api"
)

// withImages gives a node status.images: each entry is a size in MiB and
// the image's names.
func withImages(imgs ...api.ContainerImage) nodeOpt {
	return func(n *api.Node) { n.Status.Images = append(n.Status.Images, imgs...) }
}

func img(mib int64, names ...string) api.ContainerImage {
	return api.ContainerImage{Names: names, SizeBytes: mib * mebibyte}
}

// imagePod is a pod whose containers run images, and whose init
// containers run inits.
func imagePod(images []string, inits ...string) *api.Pod {
	p := mkPod("p", "", "")
	p.Spec.Containers = nil
	for _, im := range images {
		p.Spec.Containers = append(p.Spec.Containers, api.Container{Name: "c", Image: im})
	}
	for _, im := range inits {
		p.Spec.InitContainers = append(p.Spec.InitContainers, api.Container{Name: "i", Image: im})
	}
	return p
}

// The cases of kube-scheduler's
// pkg/scheduler/framework/plugins/imagelocality/image_locality_test.go
// (TestImageLocalityPriority), scored through Decide.
func TestImageLocalityPriority(t *testing.T) {
	node403002000 := withImages(img(40, "gcr.io/40:latest", "gcr.io/40:v1", "gcr.io/40:v1"),
		img(300, "gcr.io/300:latest", "gcr.io/300:v1"), img(2000, "gcr.io/2000:latest"))
	node25010 := withImages(img(250, "gcr.io/250:latest"), img(10, "gcr.io/10:latest", "gcr.io/10:v1"))
	node60040900 := withImages(img(600, "gcr.io/600:latest"), img(40, "gcr.io/40:latest"), img(900, "gcr.io/900:latest"))
	node300600900 := withImages(img(300, "gcr.io/300:latest"), img(600, "gcr.io/600:latest"), img(900, "gcr.io/900:latest"))
	node400030 := withImages(img(4000, "gcr.io/4000:latest"), img(30, "gcr.io/30:latest"))
	node203040 := withImages(img(20, "gcr.io/20:latest"), img(30, "gcr.io/30:latest"), img(40, "gcr.io/40:latest"))
	noImages := withImages()
	n := func(name string, o nodeOpt) *api.Node { return mkNode(name, "4", "8Gi", 10, o) }
	tests := []struct {
		name  string
		pod   *api.Pod
		nodes []*api.Node
		want  []int64
	}{
		// 250M/2 spread: 100 × (125M − 23M) / (2 × 1000M − 23M) = 5.
		{"two images spread on two nodes, prefer the larger image one",
			imagePod([]string{"gcr.io/40", "gcr.io/250"}),
			[]*api.Node{n("node1", node403002000), n("node2", node25010)}, []int64{0, 5}},
		// 100 × ((40M + 300M)/2 − 23M) / (2000M − 23M) = 7.
		{"two images on one node, prefer this node",
			imagePod([]string{"gcr.io/40", "gcr.io/300"}),
			[]*api.Node{n("node1", node403002000), n("node2", node25010)}, []int64{7, 0}},
		{"if exceed limit, use limit",
			imagePod([]string{"gcr.io/4000", "gcr.io/10"}),
			[]*api.Node{n("node1", node400030), n("node2", node25010)}, []int64{MaxNodeScore, 0}},
		// 100 × (4000M/3 − 23M) / (2000M − 23M) = 66.
		{"if exceed limit, use limit (with node which has no images present)",
			imagePod([]string{"gcr.io/4000", "gcr.io/10"}),
			[]*api.Node{n("node1", node400030), n("node2", node25010), n("node3", noImages)}, []int64{66, 0, 0}},
		{"pod with multiple large images, node2 is preferred",
			imagePod([]string{"gcr.io/300", "gcr.io/600", "gcr.io/900"}),
			[]*api.Node{n("node1", node60040900), n("node2", node300600900), n("node3", noImages)}, []int64{32, 36, 0}},
		{"pod with multiple small images",
			imagePod([]string{"gcr.io/30", "gcr.io/40"}),
			[]*api.Node{n("node1", node203040), n("node2", node400030)}, []int64{1, 0}},
		{"include InitContainers: two images spread on two nodes, prefer the larger image one",
			imagePod([]string{"gcr.io/30"}, "gcr.io/300"),
			[]*api.Node{n("node1", node403002000), n("node2", node203040)}, []int64{6, 0}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := scoresOf(t, ScoreImageLocality, tt.nodes, nil, tt.pod)
			if len(got) != len(tt.want) {
				t.Fatalf("scores %v, want %v", got, tt.want)
			}
			for i := range got {
				if got[i] != tt.want[i] {
					t.Fatalf("scores %v, want %v", got, tt.want)
				}
			}
		})
	}
}

// From image_locality_test.go (TestNormalizedImageName).
func TestNormalizedImageName(t *testing.T) {
	digest := "sha256:4813494d137e1631bba301d5acab6e7bb7aa74ce1185d456565ef51d737677b2"
	for _, tc := range []struct{ in, out string }{
		{"root", "root:latest"},
		{"gcr.io:5000/root", "gcr.io:5000/root:latest"},
		{"root:tag", "root:tag"},
		{"root@" + digest, "root@" + digest},
	} {
		if got := normalizedImageName(tc.in); got != tc.out {
			t.Errorf("normalizedImageName(%q) = %q, want %q", tc.in, got, tc.out)
		}
	}
}

// The cache keeps each image name's spread as nodes come, change and go,
// and the score follows it: an image on one node of two counts half its
// size, on both nodes all of it.
func TestImageLocalitySpreadFollowsNodes(t *testing.T) {
	c := NewCache(0)
	big := img(1200, "registry.example/app:v1")
	c.SetNode(mkNode("a", "4", "8Gi", 10, withImages(big)))
	c.SetNode(mkNode("b", "4", "8Gi", 10))
	pod := NewPodInfo(imagePod([]string{"registry.example/app:v1"}))
	score := func(node string) int64 {
		t.Helper()
		env := pluginEnv{images: c.images}
		d, _ := decide(pod, c.Nodes(), nil, Weights{}.scorers(), rng(), t0, nil, 0, len(c.Nodes()), volumeState{}, env)
		e := d.explain()
		v, _ := e.Verdict(node)
		for i, n := range e.ScoreNames {
			if n == ScoreImageLocality {
				return v.Scores[i]
			}
		}
		t.Fatal("no ImageLocality score")
		return 0
	}
	// 1200M/2 = 600M: 100 × (600M − 23M) / (1000M − 23M) = 59.
	if got := score("a"); got != 59 {
		t.Fatalf("one of two nodes: a scores %d, want 59", got)
	}
	if got := score("b"); got != 0 {
		t.Fatalf("b without the image scores %d", got)
	}
	c.SetNode(mkNode("b", "4", "8Gi", 10, withImages(big)))
	if got := c.images["registry.example/app:v1"].nodes; got != 2 {
		t.Fatalf("spread %d after b pulled it, want 2", got)
	}
	if got := score("b"); got != MaxNodeScore {
		t.Fatalf("both nodes: b scores %d, want %d", got, MaxNodeScore)
	}
	c.SetNode(mkNode("a", "4", "8Gi", 10)) // a's image was removed
	c.RemoveNode("b")
	if len(c.images) != 0 {
		t.Fatalf("images left after every holder dropped it: %v", c.images)
	}
}
