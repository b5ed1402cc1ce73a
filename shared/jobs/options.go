package jobs

import "github.com/prospectdata/svc/shared/modules"

// jobOption is where a job carries one of its module's options: the
// contract's public fields (email_mode, max_reviews, period_months) and
// the stored capture_screenshot. An option none of these holds has one
// value (phone_info's live_mode) and needs no place.
type jobOption struct {
	get func(j *Job) (any, bool)
	set func(j *Job, v any)
}

// jobOptions are the places, by option name.
func jobOptions() map[string]jobOption {
	return map[string]jobOption{
		"mode":          pointerField(func(j *Job) **string { return &j.EmailMode }),
		"max_reviews":   pointerField(func(j *Job) **int { return &j.MaxReviews }),
		"period_months": pointerField(func(j *Job) **int { return &j.PeriodMonths }),
		"capture_screenshot": {
			get: func(j *Job) (any, bool) { return j.CaptureScreenshot, true },
			set: func(j *Job, v any) { j.CaptureScreenshot = v.(bool) },
		},
	}
}

// pointerField is an option carried by a public field that is null on
// jobs of other modules.
func pointerField[T any](field func(j *Job) **T) jobOption {
	return jobOption{
		get: func(j *Job) (any, bool) {
			p := *field(j)
			if p == nil {
				return nil, false
			}
			return *p, true
		},
		set: func(j *Job, v any) {
			x := v.(T)
			*field(j) = &x
		},
	}
}

// setOptions keeps a new job's settings (its module's Read).
func (j *Job) setOptions(v modules.Values) {
	places := jobOptions()
	for name, x := range v {
		if p, ok := places[name]; ok {
			p.set(j, x)
		}
	}
}

// Options are the job's settings as its module reads them: every option
// of the job's module, the job's value or the default.
func (j *Job) Options() modules.Values {
	e, _ := modules.Lookup(j.JobType)
	v := modules.Values{}
	places := jobOptions()
	for _, o := range e.Options {
		v[o.Name] = o.Default
		if p, ok := places[o.Name]; ok {
			if x, set := p.get(j); set {
				v[o.Name] = x
			}
		}
	}
	return v
}
