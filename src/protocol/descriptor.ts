/** The message descriptor: GET /messages/:mid, and `data` of message events (SPEC.md section 2.2). */

/** Identifiers of the standard a Core or Original document follows. */
export interface DocumentTransaction {
  transactionKeyName: string;
  profileIdentifier: string;
  customizationIdentifier: string;
  documentIdentifier: string;
}

export interface DocumentEntry {
  index: number;
  /** Document type name, for example `Invoice`; routing filters match on it. */
  name: string;
  contentType: string;
  /** `Core` or `Original`. */
  attachmentType: string;
  isTransformed: boolean;
  transaction?: DocumentTransaction;
}

export interface Party {
  identifier: string;
  name: string;
  countryCode: string;
}

export interface MessageDescriptor {
  /** Equal to the event's messageId. */
  uniqueId: string;
  timeReceived: string;
  documentNo: string;
  /** Delivery status (SPEC.md section 3). */
  status: string;
  transfer: 'inbound' | 'outbound';
  validationStatus: string;
  taxReportingStatus: string;
  lifecycleStatus: string;
  importStatus: string;
  /** Business transaction name; selects the GET /transactions/... call. */
  action: string;
  originParty: Party;
  destinationParty: Party;
  documents: DocumentEntry[];
}
