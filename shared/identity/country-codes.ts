/**
 * ISO 3166-1 alpha-2 → alpha-3, all 249 officially assigned codes, plus XK (Kosovo, the
 * user-assigned code in common use). Static, because Intl.DisplayNames also knows deprecated
 * and non-country codes (SU, EU, ZZ, …) that must not be accepted.
 */
const ALPHA2_ALPHA3 =
	'AD AND AE ARE AF AFG AG ATG AI AIA AL ALB AM ARM AO AGO AQ ATA AR ARG AS ASM AT AUT AU AUS ' +
	'AW ABW AX ALA AZ AZE BA BIH BB BRB BD BGD BE BEL BF BFA BG BGR BH BHR BI BDI BJ BEN BL BLM ' +
	'BM BMU BN BRN BO BOL BQ BES BR BRA BS BHS BT BTN BV BVT BW BWA BY BLR BZ BLZ CA CAN CC CCK ' +
	'CD COD CF CAF CG COG CH CHE CI CIV CK COK CL CHL CM CMR CN CHN CO COL CR CRI CU CUB CV CPV ' +
	'CW CUW CX CXR CY CYP CZ CZE DE DEU DJ DJI DK DNK DM DMA DO DOM DZ DZA EC ECU EE EST EG EGY ' +
	'EH ESH ER ERI ES ESP ET ETH FI FIN FJ FJI FK FLK FM FSM FO FRO FR FRA GA GAB GB GBR GD GRD ' +
	'GE GEO GF GUF GG GGY GH GHA GI GIB GL GRL GM GMB GN GIN GP GLP GQ GNQ GR GRC GS SGS GT GTM ' +
	'GU GUM GW GNB GY GUY HK HKG HM HMD HN HND HR HRV HT HTI HU HUN ID IDN IE IRL IL ISR IM IMN ' +
	'IN IND IO IOT IQ IRQ IR IRN IS ISL IT ITA JE JEY JM JAM JO JOR JP JPN KE KEN KG KGZ KH KHM ' +
	'KI KIR KM COM KN KNA KP PRK KR KOR KW KWT KY CYM KZ KAZ LA LAO LB LBN LC LCA LI LIE LK LKA ' +
	'LR LBR LS LSO LT LTU LU LUX LV LVA LY LBY MA MAR MC MCO MD MDA ME MNE MF MAF MG MDG MH MHL ' +
	'MK MKD ML MLI MM MMR MN MNG MO MAC MP MNP MQ MTQ MR MRT MS MSR MT MLT MU MUS MV MDV MW MWI ' +
	'MX MEX MY MYS MZ MOZ NA NAM NC NCL NE NER NF NFK NG NGA NI NIC NL NLD NO NOR NP NPL NR NRU ' +
	'NU NIU NZ NZL OM OMN PA PAN PE PER PF PYF PG PNG PH PHL PK PAK PL POL PM SPM PN PCN PR PRI ' +
	'PS PSE PT PRT PW PLW PY PRY QA QAT RE REU RO ROU RS SRB RU RUS RW RWA SA SAU SB SLB SC SYC ' +
	'SD SDN SE SWE SG SGP SH SHN SI SVN SJ SJM SK SVK SL SLE SM SMR SN SEN SO SOM SR SUR SS SSD ' +
	'ST STP SV SLV SX SXM SY SYR SZ SWZ TC TCA TD TCD TF ATF TG TGO TH THA TJ TJK TK TKL TL TLS ' +
	'TM TKM TN TUN TO TON TR TUR TT TTO TV TUV TW TWN TZ TZA UA UKR UG UGA UM UMI US USA UY URY ' +
	'UZ UZB VA VAT VC VCT VE VEN VG VGB VI VIR VN VNM VU VUT WF WLF WS WSM YE YEM YT MYT ZA ZAF ' +
	'ZM ZMB ZW ZWE XK XKX';

/** [alpha-2, alpha-3] pairs, uppercase. */
export const COUNTRY_CODES: ReadonlyArray<readonly [string, string]> = (() => {
	const tokens = ALPHA2_ALPHA3.split(' ');
	const pairs: Array<readonly [string, string]> = [];
	for (let index = 0; index < tokens.length; index += 2)
		pairs.push([tokens[index], tokens[index + 1]]);
	return pairs;
})();

/**
 * Names people type that Intl.DisplayNames does not produce: ISO official forms, endonyms and
 * everyday aliases. Keys are written plainly; they are folded with the same lookup key as input.
 */
export const COUNTRY_ALIASES: Readonly<Record<string, string>> = {
	'United States of America': 'us',
	America: 'us',
	'U.S.': 'us',
	UK: 'gb',
	'Great Britain': 'gb',
	Britain: 'gb',
	England: 'gb',
	Scotland: 'gb',
	Wales: 'gb',
	'Northern Ireland': 'gb',
	'United Kingdom of Great Britain and Northern Ireland': 'gb',
	Deutschland: 'de',
	España: 'es',
	Brasil: 'br',
	Italia: 'it',
	Holland: 'nl',
	Nederland: 'nl',
	Schweiz: 'ch',
	Suisse: 'ch',
	Svizzera: 'ch',
	Österreich: 'at',
	België: 'be',
	Belgique: 'be',
	Sverige: 'se',
	Norge: 'no',
	Danmark: 'dk',
	Suomi: 'fi',
	Polska: 'pl',
	Éire: 'ie',
	'Republic of Ireland': 'ie',
	'Czech Republic': 'cz',
	Macedonia: 'mk',
	Swaziland: 'sz',
	'Cabo Verde': 'cv',
	'East Timor': 'tl',
	Turkey: 'tr',
	'Ivory Coast': 'ci',
	Burma: 'mm',
	'Hong Kong': 'hk',
	Macao: 'mo',
	Macau: 'mo',
	'Russian Federation': 'ru',
	Korea: 'kr',
	'Republic of Korea': 'kr',
	'Korea, Republic of': 'kr',
	"Korea, Democratic People's Republic of": 'kp',
	"Democratic People's Republic of Korea": 'kp',
	'Iran, Islamic Republic of': 'ir',
	'Islamic Republic of Iran': 'ir',
	'Syrian Arab Republic': 'sy',
	"Lao People's Democratic Republic": 'la',
	'Viet Nam': 'vn',
	'Bolivia, Plurinational State of': 'bo',
	'Plurinational State of Bolivia': 'bo',
	'Venezuela, Bolivarian Republic of': 've',
	'Tanzania, United Republic of': 'tz',
	'United Republic of Tanzania': 'tz',
	'Moldova, Republic of': 'md',
	'Republic of Moldova': 'md',
	'Taiwan, Province of China': 'tw',
	'Brunei Darussalam': 'bn',
	'Micronesia, Federated States of': 'fm',
	'Federated States of Micronesia': 'fm',
	'Falkland Islands (Malvinas)': 'fk',
	'Virgin Islands, British': 'vg',
	'Virgin Islands, U.S.': 'vi',
	'United States Virgin Islands': 'vi',
	'United States Minor Outlying Islands': 'um',
	'Holy See': 'va',
	Vatican: 'va',
	Palestine: 'ps',
	'State of Palestine': 'ps',
	'Palestine, State of': 'ps',
	'Democratic Republic of the Congo': 'cd',
	'Congo, Democratic Republic of the': 'cd',
	'DR Congo': 'cd',
	DRC: 'cd',
	'Republic of the Congo': 'cg',
	'Republic of Congo': 'cg',
	'Saint Vincent and the Grenadines': 'vc',
	'South Georgia and the South Sandwich Islands': 'gs',
	'Heard Island and McDonald Islands': 'hm',
	'Bonaire, Sint Eustatius and Saba': 'bq',
	'Sao Tome and Principe': 'st',
	'Saint Helena, Ascension and Tristan da Cunha': 'sh',
	UAE: 'ae',
	Emirates: 'ae',
	KSA: 'sa',
};
