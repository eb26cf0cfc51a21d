package api

import (
	"strings"
	"time"
)

// The tables of the RBAC kinds, as kubectl's printers
// (k8s.io/kubernetes pkg/printers/internalversion printRole,
// printClusterRole, printRoleBinding, printClusterRoleBinding) compute
// them.

// roleColumns are the table of Role and ClusterRole objects.
var roleColumns = []Column{{"Name", "string", 0}, {"Created At", "date", 0}}

func roleCells(o Object, _ time.Time) []any {
	m := o.GetObjectMeta()
	return []any{m.Name, m.CreationTimestamp.UTC().Format(time.RFC3339)}
}

// roleBindingColumns are the table of RoleBinding and ClusterRoleBinding
// objects.
var roleBindingColumns = []Column{{"Name", "string", 0}, {"Role", "string", 0}, {"Age", "string", 0},
	{"Users", "string", 1}, {"Groups", "string", 1}, {"ServiceAccounts", "string", 1}}

func roleBindingCells(o Object, now time.Time) []any {
	var ref RoleRef
	var subjects []Subject
	switch b := o.(type) {
	case *RoleBinding:
		ref, subjects = b.RoleRef, b.Subjects
	case *ClusterRoleBinding:
		ref, subjects = b.RoleRef, b.Subjects
	}
	var users, groups, sas []string
	for _, s := range subjects {
		switch s.Kind {
		case UserKind:
			users = append(users, s.Name)
		case GroupKind:
			groups = append(groups, s.Name)
		case ServiceAccountKind:
			sas = append(sas, s.Namespace+"/"+s.Name)
		}
	}
	return []any{o.GetObjectMeta().Name, ref.Kind + "/" + ref.Name, age(o, now),
		strings.Join(users, ", "), strings.Join(groups, ", "), strings.Join(sas, ", ")}
}
