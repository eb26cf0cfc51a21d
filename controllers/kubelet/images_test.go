package kubelet

import (
	"fmt"
	"strings"
	"testing"
)

// The store lists images largest first (the kubelet's ByImageSize), at
// most NodeStatusMaxImages of them, each with its digest name then its
// tag; a second use of an image does not add it again.
func TestImageStoreList(t *testing.T) {
	st := imageStore{}
	for i := range 60 {
		st.use(imagePull{fmt.Sprintf("reg.example/img%02d", i), int64(i+1) << 20}, at(i))
	}
	st.use(imagePull{"reg.example/img00:latest", 1}, at(100))
	got := st.list()
	if len(got) != NodeStatusMaxImages {
		t.Fatalf("%d images listed, want %d", len(got), NodeStatusMaxImages)
	}
	for i, im := range got {
		want := fmt.Sprintf("reg.example/img%02d", 59-i)
		if im.SizeBytes != int64(60-i)<<20 || len(im.Names) != 2 || im.Names[1] != want+":latest" ||
			!strings.HasPrefix(im.Names[0], want+"@sha256:") || len(im.Names[0]) != len(want)+len("@sha256:")+64 {
			t.Fatalf("image %d: %+v", i, im)
		}
	}
	if len(st) != 60 {
		t.Errorf("store holds %d images, want 60", len(st))
	}
}

// Beyond maxImagesKept, the image used least recently is forgotten.
func TestImageStoreBounded(t *testing.T) {
	st := imageStore{}
	for i := range maxImagesKept + 1 {
		st.use(imagePull{fmt.Sprintf("img%d", i), 1}, at(2*i))
		if i == 1 {
			st.use(imagePull{"img0", 1}, at(3)) // img0 used again: img1 is the oldest
		}
	}
	if len(st) != maxImagesKept {
		t.Fatalf("store holds %d", len(st))
	}
	if st.find("img1:latest") != nil {
		t.Error("the least recently used image is kept")
	}
	if st.find("img0:latest") == nil {
		t.Error("an image used again was forgotten")
	}
}

func TestImageNames(t *testing.T) {
	cases := []struct{ ref, tag, repo string }{
		{"nginx", "nginx:latest", "nginx"},
		{"nginx:1.27", "nginx:1.27", "nginx"},
		{"localhost:5000/app", "localhost:5000/app:latest", "localhost:5000/app"},
		{"localhost:5000/app:v2", "localhost:5000/app:v2", "localhost:5000/app"},
	}
	for _, tc := range cases {
		n := ImageNames(tc.ref)
		if len(n) != 2 || n[1] != tc.tag || !strings.HasPrefix(n[0], tc.repo+"@sha256:") {
			t.Errorf("%s: %v", tc.ref, n)
		}
	}
	if n := ImageNames("nginx@sha256:abc"); len(n) != 1 || n[0] != "nginx@sha256:abc" {
		t.Errorf("by digest: %v", n)
	}
	if ImageSize("nginx") != ImageSize("nginx:latest") || ImageSize("nginx") < 10<<20 || ImageSize("nginx") >= 1000<<20 {
		t.Errorf("size %d", ImageSize("nginx"))
	}
	if imageDigestName("nginx") != imageDigestName("nginx:latest") || imageDigestName("nginx") == imageDigestName("nginx:1.27") {
		t.Error("digests: same ref differs or different refs agree")
	}
}
