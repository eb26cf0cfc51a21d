// Package openapi builds the OpenAPI documents an API server publishes —
// v3, one per group version (/openapi/v3/apis/apps/v1), and v2, one for
// everything (/openapi/v2) — from the Go types of the kinds served, so
// that the types that serve the API are its one description:
//
//	docs, err := openapi.Build("v1.37.2", resources)
//	docs.V3["apis/apps/v1"] // JSON
//
// # The definitions
//
// Each struct type a kind reaches is a definition, named as
// kube-apiserver names it: io.k8s.api.apps.v1.Deployment,
// io.k8s.api.core.v1.PodSpec, io.k8s.apimachinery.pkg.apis.meta.v1.ObjectMeta,
// io.k8s.apimachinery.pkg.api.resource.Quantity,
// io.k8s.apimachinery.pkg.util.intstr.IntOrString. A kind is named by its
// group version; apimachinery's types by their package; another type of
// controllers/api by the group version of the kinds that reach it,
// core/v1 when kinds of several groups do (Kubernetes keeps its shared
// types there). A kind added with api.Register and its types are named
// by the reversed group ("dev.ctrlkit.example.v1.Widget"), as is a
// CustomResourceDefinition's kind, whose definition is its schema with
// metadata a reference to ObjectMeta. Each kind has a <Kind>List
// definition beside it; ListMeta, Patch and Status are written here, as
// controllers/api has no Go type for them.
//
// The schemas come from controllers/crdgen (Definitions), by the rules
// it applies to a custom resource's type: JSON names, types and formats,
// required fields (not a pointer, no omitempty or omitzero, or
// +required), int-or-string values (x-kubernetes-int-or-string),
// preserve-unknown-fields for raw JSON, and the +kubebuilder and
// +listType markers. Descriptions are the doc comments of controllers/api:
// a binary has no source, so gen_comments.go (go generate) writes them to
// zz_generated_comments.go, and TestCommentsCurrent fails when that file
// no longer matches the source. Everything else is computed by
// reflection when the documents are built, so a kind's documents cannot
// disagree with the type the server decodes.
//
// A field with a patch strategy in the strategic-merge-patch metadata of
// controllers/apiserver/patch (taken from k8s.io/api's struct tags)
// carries it as x-kubernetes-patch-strategy and
// x-kubernetes-patch-merge-key; a merging list without a +listType
// marker gets the x-kubernetes-list-type that implies (map keyed by the
// merge key, or set for scalars). That is kube's list type for most
// lists, not all: Container.ports, for one, is keyed by containerPort
// and protocol upstream, by containerPort here. Kind definitions carry
// x-kubernetes-group-version-kind. In v3 a reference with a description
// beside it is wrapped in allOf, as kube-apiserver's v3 documents do; v2
// keeps the description beside the $ref.
//
// # The paths
//
// Each resource has kube-apiserver's paths and operations: list, create
// and deletecollection on the collection (and a list across namespaces
// for a namespaced one), read, replace, patch and delete on an object,
// read, replace and patch on its status, each with its operationId
// (patchAppsV1NamespacedDeployment), x-kubernetes-action and
// x-kubernetes-group-version-kind. Writes declare the fieldValidation
// parameter, which tells kubectl that the server validates fields
// itself; a built-in kind's patch accepts a strategic merge patch, which
// kubectl apply then computes from the v3 schemas. Watch paths and the
// scale subresource's are not listed.
//
// Build is a pure function of its arguments, safe for concurrent use;
// the definitions of the built-in kinds are made once per process.
package openapi
