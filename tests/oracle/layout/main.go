// Command layout prints how Go's encoding/json renders the API server's internal Pod
// (k8s.io/kubernetes/pkg/apis/core.Pod) and every type it reaches: the field-error printer of
// k8s.io/apimachinery/pkg/util/validation/field (ErrorBody) json.Marshals a struct-valued bad
// value, and bad values are internal objects. For each struct: its fields in encoding order
// (embedded structs promoted in place), the key each is printed under (the Go name for the
// untagged internal types, the json tag for the apimachinery ones), omitempty, and the json key
// of the same field in the external (k8s.io/api/core/v1) type, which is what podmut holds.
//
// `cargo xtask oracle layouts` builds this once per pinned release (a module that requires that
// release, like the oracle's kube-apiserver) and writes core/src/field/go_layout.rs from the
// outputs. Nothing here is hand-written per type: a type the walk cannot describe is an error.
package main

import (
	"encoding/json"
	"fmt"
	"os"
	"reflect"
	"sort"
	"strings"

	v1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/intstr"
	"k8s.io/kubernetes/pkg/apis/core"
)

// Field is one encoded field of a struct.
type Field struct {
	// Key is the JSON key encoding/json prints.
	Key string
	// Ext is the json key of the same field in the external type; empty when the external type
	// has no field of that Go name (the value is then the Go zero value).
	Ext string
	// OmitEmpty is the tag's omitempty.
	OmitEmpty bool
	// Type describes the value (see describe).
	Type string
}

var (
	quantityType    = reflect.TypeOf(resource.Quantity{})
	timeType        = reflect.TypeOf(metav1.Time{})
	microTimeType   = reflect.TypeOf(metav1.MicroTime{})
	durationType    = reflect.TypeOf(metav1.Duration{})
	intOrStringType = reflect.TypeOf(intstr.IntOrString{})
	fieldsV1Type    = reflect.TypeOf(metav1.FieldsV1{})
	marshalerType   = reflect.TypeOf((*json.Marshaler)(nil)).Elem()
)

// corePackage holds the internal types; every other package's types are shared with the external API.
var corePackage = reflect.TypeOf(core.Pod{}).PkgPath()

type walker struct {
	structs map[string][]Field
}

func typeID(t reflect.Type) string {
	pkg := t.PkgPath()
	return pkg[strings.LastIndex(pkg, "/")+1:] + "." + t.Name()
}

// describe names a type: a scalar, a value with its own MarshalJSON, or ptr:/slice:/map:/struct:.
func (w *walker) describe(internal, external reflect.Type) string {
	switch internal {
	case quantityType:
		return "quantity"
	case timeType:
		return "time"
	case microTimeType:
		return "microtime"
	case durationType:
		return "duration"
	case intOrStringType:
		return "intorstring"
	case fieldsV1Type:
		return "raw"
	}
	if internal.Kind() != reflect.Pointer && (internal.Implements(marshalerType) || reflect.PointerTo(internal).Implements(marshalerType)) {
		panic(fmt.Sprintf("%v has its own MarshalJSON: teach the layout about it", internal))
	}
	ext := func(f func(reflect.Type) reflect.Type) reflect.Type {
		if external == nil || external.Kind() != internal.Kind() {
			return nil
		}
		return f(external)
	}
	elem := func(t reflect.Type) reflect.Type { return t.Elem() }
	switch internal.Kind() {
	case reflect.String:
		return "string"
	case reflect.Bool:
		return "bool"
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
		return "int"
	case reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64:
		return "uint"
	case reflect.Float32, reflect.Float64:
		return "float"
	case reflect.Pointer:
		// A pointer to a scalar the external type holds by value is the same JSON.
		e := external
		if e != nil && e.Kind() == reflect.Pointer {
			e = e.Elem()
		}
		return "ptr:" + w.describe(internal.Elem(), e)
	case reflect.Slice:
		if internal.Elem().Kind() == reflect.Uint8 {
			return "bytes"
		}
		return "slice:" + w.describe(internal.Elem(), ext(elem))
	case reflect.Map:
		if internal.Key().Kind() != reflect.String {
			panic(fmt.Sprintf("%v: only string-keyed maps are described", internal))
		}
		return "map:" + w.describe(internal.Elem(), ext(elem))
	case reflect.Struct:
		w.walk(internal, ext(func(t reflect.Type) reflect.Type { return t }))
		return "struct:" + typeID(internal)
	}
	panic(fmt.Sprintf("%v: kind %v is not described", internal, internal.Kind()))
}

// jsonName is the key and options of a field's json tag ("" and false when untagged).
func jsonName(f reflect.StructField) (name string, omitEmpty bool, skip bool) {
	tag, ok := f.Tag.Lookup("json")
	if !ok {
		return "", false, false
	}
	if tag == "-" {
		return "", false, true
	}
	parts := strings.Split(tag, ",")
	for _, o := range parts[1:] {
		if o == "omitempty" {
			omitEmpty = true
		}
	}
	return parts[0], omitEmpty, false
}

// fields lists t's encoded fields in order, promoting embedded structs in place.
func (w *walker) fields(t, external reflect.Type) []Field {
	var out []Field
	for i := 0; i < t.NumField(); i++ {
		f := t.Field(i)
		if !f.IsExported() && !f.Anonymous {
			continue
		}
		name, omitEmpty, skip := jsonName(f)
		if skip {
			continue
		}
		var ef *reflect.StructField
		if external != nil {
			if e, ok := external.FieldByName(f.Name); ok && len(e.Index) == 1 {
				ef = &e
			}
		}
		if f.Anonymous && name == "" && f.Type.Kind() == reflect.Struct {
			var et reflect.Type
			if ef != nil {
				if !ef.Anonymous {
					panic(fmt.Sprintf("%v.%s is embedded but the external field is not", t, f.Name))
				}
				et = ef.Type
			}
			out = append(out, w.fields(f.Type, et)...)
			continue
		}
		if f.Anonymous {
			panic(fmt.Sprintf("%v.%s: embedded non-struct or tagged embedding", t, f.Name))
		}
		key := f.Name
		if name != "" {
			key = name
		}
		field := Field{Key: key, OmitEmpty: omitEmpty}
		var et reflect.Type
		if ef != nil {
			extName, _, extSkip := jsonName(*ef)
			if !extSkip && extName != "" {
				field.Ext = extName
				et = ef.Type
			}
		}
		field.Type = w.describe(f.Type, et)
		out = append(out, field)
	}
	seen := map[string]bool{}
	for _, f := range out {
		if seen[f.Key] {
			panic(fmt.Sprintf("%v: two fields print as %q", t, f.Key))
		}
		seen[f.Key] = true
	}
	return out
}

func (w *walker) walk(t, external reflect.Type) {
	if t.PkgPath() != corePackage {
		// apimachinery's types are the same Go type inside and outside the server.
		external = t
	}
	id := typeID(t)
	if _, done := w.structs[id]; done {
		return
	}
	w.structs[id] = nil // a recursive type refers to itself by id
	w.structs[id] = w.fields(t, external)
}

func main() {
	if len(os.Args) != 2 {
		fmt.Fprintln(os.Stderr, "usage: layout RELEASE")
		os.Exit(2)
	}
	w := &walker{structs: map[string][]Field{}}
	roots := []struct{ internal, external interface{} }{
		{core.Pod{}, v1.Pod{}},
	}
	var names []string
	for _, r := range roots {
		it, et := reflect.TypeOf(r.internal), reflect.TypeOf(r.external)
		w.walk(it, et)
		names = append(names, typeID(it))
	}
	// One line per record, tab-separated, structs in name order (what the xtask reads):
	//   release <release>
	//   root <struct id>
	//   struct <id>
	//   field <key> <external key or -> <omitempty 0|1> <type>
	var b strings.Builder
	fmt.Fprintf(&b, "release\t%s\n", os.Args[1])
	for _, n := range names {
		fmt.Fprintf(&b, "root\t%s\n", n)
	}
	ids := make([]string, 0, len(w.structs))
	for id := range w.structs {
		ids = append(ids, id)
	}
	sort.Strings(ids)
	for _, id := range ids {
		fmt.Fprintf(&b, "struct\t%s\n", id)
		for _, f := range w.structs[id] {
			ext, omit := f.Ext, 0
			if ext == "" {
				ext = "-"
			}
			if f.OmitEmpty {
				omit = 1
			}
			fmt.Fprintf(&b, "field\t%s\t%s\t%d\t%s\n", f.Key, ext, omit, f.Type)
		}
	}
	out := []byte(b.String())
	os.Stdout.Write(out)
}
