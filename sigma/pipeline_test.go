package sigma

import (
	"strings"
	"testing"
)

func TestPipelineRefusesWhatItDoesNotRead(t *testing.T) {
	_, err := ParsePipeline("p.yml", []byte(`name: team
transformations:
  - id: drop
    type: drop_detection_item
    field_name_conditions:
      - type: include_fields
        fields: [Hashes]
`))
	r, ok := err.(*Refusal)
	if !ok || r.Line != 4 || r.Col != 11 || !strings.Contains(r.Reason, `"drop_detection_item" is not supported`) {
		t.Fatalf("err %v, want drop_detection_item refused at 4:11", err)
	}
	if _, err := ParsePipeline("p.yml", []byte(`name: team
transformations:
  - type: field_name_mapping
    mapping:
      Image: image_path
`)); err == nil || !strings.Contains(err.Error(), `"image_path", which is not a cordon event field`) {
		t.Fatalf("err %v, want the unknown target field refused", err)
	}
}

func TestBuiltinPipelineReads(t *testing.T) {
	p, err := Builtin()
	if err != nil {
		t.Fatal(err)
	}
	if p.Name != "cordon" || len(p.Transformations) < 8 {
		t.Fatalf("pipeline %q with %d transformations", p.Name, len(p.Transformations))
	}
}
