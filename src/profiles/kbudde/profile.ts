import type { NamingProfile } from '../../exposition/naming-profile.js';
import { kbuddeNames } from './names.js';
import { kbuddeOwnSeries } from './own-series.js';

/** kbudde/rabbitmq_exporter's profile (docs/kbudde-migration.md): its names, and its own series of module health. */
export const kbuddeProfile: NamingProfile = { name: 'kbudde', served: (def) => kbuddeNames.served(def), ownSeries: kbuddeOwnSeries };
