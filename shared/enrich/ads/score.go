package ads

// Weights of ads_score; the reasons are in the package documentation.
const (
	weightGoogleAds    = 30
	weightMicrosoftAds = 15
	weightMetaPixel    = 15
	weightOtherSocial  = 10
	capSocial          = 30
	weightRetargeting  = 15
	weightDisplay      = 10
	capDisplay         = 20
	weightCRM          = 5
	maxScore           = 100
)

// score computes ads_score from the tags found.
func score(found []rule) int {
	var search, soc, display, total int
	var retargeting, marketing bool
	for _, r := range found {
		switch {
		case r.name == "Google Ads":
			search += weightGoogleAds
		case r.name == "Microsoft Advertising":
			search += weightMicrosoftAds
		case r.name == "Meta Pixel":
			soc += weightMetaPixel
		case r.kinds&social != 0:
			soc += weightOtherSocial
		case r.kinds&network != 0:
			display += weightDisplay
		}
		retargeting = retargeting || r.kinds&retarget != 0
		marketing = marketing || r.kinds&crm != 0
	}
	total = search + min(soc, capSocial) + min(display, capDisplay)
	if retargeting {
		total += weightRetargeting
	}
	if marketing {
		total += weightCRM
	}
	return min(total, maxScore)
}
