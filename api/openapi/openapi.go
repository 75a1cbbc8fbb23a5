package openapi

// A Schema is a JSON Schema as OpenAPI 3.1 has it (draft 2020-12), with
// the keywords the document uses; a zero field is an absent keyword. In a
// Component's Fields and Schema it describes a reflected schema further
// (see Component).
type Schema struct {
	// Ref names a schema of components.schemas.
	Ref         string
	Description string
	// Type is one JSON type; Nullable adds null to it (or, with Ref,
	// makes the schema oneOf the reference and null).
	Type     string
	Nullable bool
	Format   string
	Const    any
	Enum     []any
	Default  any
	Examples []any
	Pattern  string

	MinLength, MaxLength *int64
	Minimum, Maximum     *int64
	MinItems, MaxItems   *int64

	ContentEncoding  string
	ContentMediaType string

	Items *Schema
	// Required lists the properties an object must have. In a Component
	// with a Go type, it replaces what the fields' tags say.
	Required             []string
	AdditionalProperties *Schema
	// Closed is additionalProperties: false.
	Closed     bool
	Properties []Property

	AllOf, OneOf, AnyOf []Schema
	Discriminator       *Discriminator
	// Defs is $defs: schemas the schema holds for others to refer to.
	Defs map[string]Schema
}

// A Property is one property of an object, in the order it is declared.
type Property struct {
	Name   string
	Schema Schema
}

// Discriminator names the property that tells which of a oneOf's schemas
// an object is, and each value's schema (by its component's name).
type Discriminator struct {
	PropertyName string
	Mapping      map[string]string
}

// N is a bound (MinLength, Maximum, ...), for the fields that take its
// address.
func N(n int64) *int64 { return &n }

// Ref is a reference to the schema components.schemas calls name.
func Ref(name string) *Schema { return &Schema{Ref: name} }

// ArrayOf is an array of items.
func ArrayOf(items *Schema) *Schema { return &Schema{Type: "array", Items: items} }

// A Component is a schema of components.schemas.
//
// With Of, a value of a Go type, the schema is the type's, reflected, as
// encoding/json writes it: a struct is an object of its fields (embedded
// structs flattened), required unless tagged omitempty or omitzero, and a
// pointer field that is not omitted may be null. A field whose type is
// another component's (its Of, when it extends none) refers to it. Fields then describe each field
// further, by its JSON name ("spf.domain" for a field of an object within
// one; an array's items take its name): the keywords a field's Schema sets
// are added to the reflected ones, but for Ref, Type, Const, Enum, OneOf,
// AnyOf and AllOf, which say what the value is and so replace what
// reflection said (a Type given with Const or Enum is kept). Schema adds the
// component's own keywords (its description, ...) the same way, and its
// Properties to the type's: for a request, those its handler takes and
// does not read.
//
// Without Of, Schema is the whole schema: for the shapes no Go type has
// (answers written as maps, the bodies outbound webhooks deliver).
type Component struct {
	Of     any
	Schema Schema
	Fields map[string]Schema
	// Omit leaves fields out: those another component (that Extends this
	// one) adds.
	Omit []string
	// Extends makes the schema allOf that component and an object of the
	// fields it lacks, requiring those Schema.Required names (by
	// default, the fields the tags require and it does not).
	Extends string
	// Request says Of is decoded, not encoded: its fields are optional
	// (Schema.Required names those the handler needs), and a pointer tells
	// a field left out, not null.
	Request bool
}

// An Operation is one method of one path, or with Webhook instead of a
// path, a request the service makes (the document's webhooks).
type Operation struct {
	Method string // GET, POST, ...
	// Path is as the docs write it, with {name} for each path parameter.
	Path        string
	Webhook     string
	ID          string // operationId
	Tags        []string
	Summary     string
	Description string
	// Security lists the ways a request may say who it comes from, each
	// the names of the schemes it uses together; an empty one is none.
	Security []Security
	// Params are the operation's parameters; those in the path are the
	// path's, and every operation of a path must give the same.
	Params    []Param
	Body      *Body
	Responses map[string]Response // by status, or default
}

// Security is the names of security schemes a request uses together.
type Security []string

// A Param is a parameter, or with Ref, one of components.parameters.
type Param struct {
	Ref         string
	Name        string
	In          string // path, query, header
	Description string
	Required    bool
	Schema      *Schema
	Example     any
	Style       string
	Explode     bool
}

// A Body is an operation's request body.
type Body struct {
	Description string
	Required    bool
	Content     map[string]MediaType // by media type
}

// A Response is one answer of an operation, or with Ref, one of
// components.responses.
type Response struct {
	Ref         string
	Description string
	Headers     map[string]Header
	Content     map[string]MediaType
}

// A Header is a response's header, or with Ref, one of
// components.headers.
type Header struct {
	Ref         string
	Description string
	Required    bool
	Schema      *Schema
}

// A MediaType is a body in one media type: its schema, and for an event
// stream the data of each event, by the event's name (x-events).
type MediaType struct {
	Schema *Schema
	Events map[string]Schema
}

// JSON is content of one schema as application/json.
func JSON(s *Schema) map[string]MediaType {
	return map[string]MediaType{"application/json": {Schema: s}}
}

// A SecurityScheme is a way a request says who it comes from.
type SecurityScheme struct {
	Type        string // apiKey, http
	Description string
	Name        string // apiKey: the header
	In          string // apiKey: header
	Scheme      string // http: bearer, basic
}

// A Contract is one family's part of the document: its operations and the
// components they name. Components are shared by name across contracts;
// each is declared by one.
type Contract struct {
	Operations      []Operation
	Schemas         map[string]Component
	Parameters      map[string]Param
	Responses       map[string]Response
	Headers         map[string]Header
	SecuritySchemes map[string]SecurityScheme
}

// WithAnswers returns own, an operation's answers by status, with each of
// common's whose status own does not answer itself: the errors a family's
// every operation may give, said once, never overriding an operation's own.
func WithAnswers(own, common map[string]Response) map[string]Response {
	for status, r := range common {
		if _, ok := own[status]; !ok {
			own[status] = r
		}
	}
	return own
}
